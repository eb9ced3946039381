#include "models/caption/caption_data.h"

#include <algorithm>
#include <array>
#include <sstream>

#include <torch/torch.h>

#include "metrics/attention_regions.h"
#include "metrics/caption_metrics.h"

namespace saccade {

std::vector<std::int64_t> encodeCaption(const std::vector<std::string>& words,
                                        const std::vector<std::string>& vocabulary, int maxLength) {
    std::vector<std::int64_t> ids(static_cast<std::size_t>(std::max(maxLength, 2)), kPadToken);
    ids[0] = kStartToken;
    std::size_t k = 1;
    for (const auto& w : words) {
        if (k >= ids.size()) return ids;  // cut: no room for <end>
        const auto it = std::find(vocabulary.begin(), vocabulary.end(), w);
        ids[k++] = it == vocabulary.end() ? kUnknownToken : std::int64_t(it - vocabulary.begin());
    }
    if (k < ids.size()) ids[k] = kEndToken;
    return ids;
}

std::vector<std::string> decodeCaption(const std::vector<std::int64_t>& tokens,
                                       const std::vector<std::string>& vocabulary) {
    std::vector<std::string> words;
    for (const auto t : tokens) {
        if (t == kEndToken || t == kPadToken) break;
        if (t == kStartToken) continue;
        words.push_back(t >= 0 && t < std::int64_t(vocabulary.size()) ? vocabulary[size_t(t)] : "<unk>");
    }
    return words;
}

torch::Tensor captionTokens(const std::vector<Sample>& samples, const CaptionConfig& config,
                            const torch::Device& device) {
    std::vector<std::int64_t> flat;
    flat.reserve(samples.size() * size_t(config.maxLength));
    for (const auto& s : samples) {
        const auto ids = encodeCaption(s.captionWords, config.vocabulary, config.maxLength);
        flat.insert(flat.end(), ids.begin(), ids.end());
    }
    return torch::tensor(flat, torch::kLong).view({std::int64_t(samples.size()), config.maxLength}).to(device);
}

std::vector<std::vector<std::string>> sceneReferences(const Sample& sample) {
    if (!sample.references.empty()) return sample.references;
    return {sample.captionWords};
}

namespace {

// "small red circle" -> {"small", "red", "circle"}.
std::array<std::string, 3> attributes(const std::string& name) {
    std::array<std::string, 3> a;
    std::istringstream in(name);
    in >> a[0] >> a[1] >> a[2];
    return a;
}

}  // namespace

std::vector<int> groundCaptionWords(const std::vector<std::string>& words, const std::vector<LabeledBox>& objects) {
    std::vector<int> out(words.size(), -1);
    std::vector<std::array<std::string, 3>> attrs;
    for (const auto& o : objects) attrs.push_back(attributes(o.name));
    for (std::size_t i = 0; i + 3 < words.size(); ++i) {
        if (words[i] != "a") continue;
        const std::array<std::string, 3> phrase = {words[i + 1], words[i + 2], words[i + 3]};
        int exact = -1;
        for (std::size_t o = 0; o < attrs.size(); ++o)
            if (attrs[o] == phrase) exact = int(o);
        for (int k = 0; k < 3; ++k) {
            if (exact >= 0) {
                out[i + 1 + size_t(k)] = exact;
                continue;
            }
            int best = -1, bestScore = -1;
            bool tie = false;
            for (std::size_t o = 0; o < attrs.size(); ++o) {
                if (attrs[o][size_t(k)] != phrase[size_t(k)]) continue;
                int score = 0;
                for (int j = 0; j < 3; ++j) score += attrs[o][size_t(j)] == phrase[size_t(j)];
                if (score > bestScore) best = int(o), bestScore = score, tie = false;
                else if (score == bestScore) tie = true;
            }
            if (!tie) out[i + 1 + size_t(k)] = best;
        }
        i += 3;
    }
    return out;
}

std::vector<std::vector<int>> captionWordTargets(const std::vector<std::string>& words,
                                                 const std::vector<LabeledBox>& objects) {
    const auto grounded = groundCaptionWords(words, objects);
    std::vector<std::vector<int>> targets(words.size());
    for (std::size_t w = 0; w < words.size(); ++w) {
        if (grounded[w] >= 0) {
            targets[w] = {grounded[w]};
        } else if (sceneWordClass(words[w]) == WordClass::Relation) {
            int before = -1, after = -1;
            for (std::size_t k = w; k-- > 0;)
                if (grounded[k] >= 0) { before = grounded[k]; break; }
            for (std::size_t k = w + 1; k < grounded.size(); ++k)
                if (grounded[k] >= 0) { after = grounded[k]; break; }
            if (before >= 0 && after >= 0 && before != after) targets[w] = {before, after};
        }
    }
    return targets;
}

std::vector<int> captionWordHits(const std::vector<std::string>& words, const std::vector<LabeledBox>& objects,
                                 const std::vector<int>& cells, int grid, int size) {
    const auto targets = captionWordTargets(words, objects);
    std::vector<int> hits(words.size(), -1);
    for (std::size_t w = 0; w < words.size(); ++w) {
        if (targets[w].empty() || w >= cells.size() || cells[w] < 0) continue;
        const Box cell = cellBox(grid, grid, size, size, cells[w]);
        hits[w] = 0;
        for (int o : targets[w]) hits[w] = hits[w] || cellHitsBox(cell, objects[size_t(o)].box);
    }
    return hits;
}

bool cellHitsBox(const Box& cell, const Box& object) {
    const double w = std::min(cell.x + cell.w, object.x + object.w) - std::max(cell.x, object.x);
    const double h = std::min(cell.y + cell.h, object.y + object.h) - std::max(cell.y, object.y);
    if (w <= 0 || h <= 0) return false;
    return w * h >= 0.25 * std::min(cell.w * cell.h, object.w * object.h);
}

}  // namespace saccade
