#include "models/caption/caption_eval.h"

#include <algorithm>

#include <torch/torch.h>

#include "metrics/attention_regions.h"
#include "models/caption/caption_data.h"
#include "models/model_input.h"

namespace saccade {

Result<CaptionRule> parseCaptionRule(const std::string& spec, TrainingMode trainedMode) {
    CaptionRule r;
    r.spec = spec;
    if (spec.rfind("beam", 0) == 0) {
        int k = 3;
        if (spec != "beam") {
            const auto rest = spec.substr(4);
            if (rest.size() < 2 || rest[0] != ':' || rest.find_first_not_of("0123456789", 1) != std::string::npos ||
                rest.size() > 4)
                return Error{"'" + spec + "' is not a beam rule (use beam:K with K in 1..100)"};
            k = std::stoi(rest.substr(1));
        }
        if (k < 1 || k > 100) return Error{"beam:K needs K in 1..100, got " + spec};
        r.beam = k;
        r.location.rule = trainedMode == TrainingMode::Soft ? SelectionRule::Soft : SelectionRule::Argmax;
        r.spec = "beam:" + std::to_string(k);
        return r;
    }
    auto parsed = parseSelectionRule(spec);
    if (!parsed || parsed->rule == SelectionRule::TopK || parsed->rule == SelectionRule::KSample)
        return Error{"'" + spec + "' is not a caption rule (use soft, argmax, sample, gumbel:TAU or beam:K)"};
    r.location = *parsed;
    r.spec = selectionRuleSpec(*parsed);
    return r;
}

std::vector<DecodedCaption> decodeImages(CaptionNetwork& net, const torch::Tensor& images, const CaptionRule& rule,
                                         Rng& rng, bool withWordProbs, double wordTemperature, Rng* wordRng) {
    const auto& vocab = net->config().vocabulary;
    const auto annotations = net->encode(images);
    std::vector<DecodedCaption> out(static_cast<std::size_t>(images.size(0)));
    if (rule.beam > 0) {
        for (std::int64_t b = 0; b < images.size(0); ++b) {
            const auto hyps = net->beamSearch(annotations.narrow(0, b, 1), rule.beam, rule.location);
            const auto& best = hyps.front();
            auto& d = out[size_t(b)];
            d.words = decodeCaption(best.tokens, vocab);
            for (std::size_t t = 0; t < best.tokens.size() && t <= d.words.size(); ++t) {
                d.attention.push_back(toFloatVector(best.probs[t]));
                d.chosen.push_back(best.indices[t].numel() ? int(best.indices[t][0].item<std::int64_t>()) : -1);
                d.entropy.push_back(float(entropyNats(d.attention.back())));
                d.logProb.push_back(0);
                if (withWordProbs) d.wordProbs.push_back(toFloatVector(best.wordProbs[t]));
            }
        }
        return out;
    }
    const auto decoded = net->decode(annotations, rule.location, rng, wordTemperature, wordRng);
    const auto tokens = decoded.tokens.to(torch::kCPU).contiguous();
    const auto probs = decoded.steps.probs.to(torch::kCPU, torch::kFloat).contiguous();  // [T, B, L]
    const auto indices = decoded.steps.indices.to(torch::kCPU).contiguous();
    const auto entropy = decoded.steps.entropy.to(torch::kCPU, torch::kFloat).contiguous();
    const auto logProb = decoded.steps.logProb.to(torch::kCPU, torch::kFloat).contiguous();
    const auto wordProbs = withWordProbs ? torch::softmax(decoded.steps.wordLogits, -1).to(torch::kCPU, torch::kFloat)
                                         : torch::Tensor();
    const auto T = tokens.size(1), L = probs.size(2);
    for (std::int64_t b = 0; b < tokens.size(0); ++b) {
        auto& d = out[size_t(b)];
        std::vector<std::int64_t> row(tokens[b].data_ptr<std::int64_t>(), tokens[b].data_ptr<std::int64_t>() + T);
        d.words = decodeCaption(row, vocab);
        // Every word, and the <end> step when there is one.
        const auto steps = std::min<std::int64_t>(T, std::int64_t(d.words.size()) + 1);
        for (std::int64_t t = 0; t < steps; ++t) {
            const float* p = probs[t][b].data_ptr<float>();
            d.attention.emplace_back(p, p + L);
            d.chosen.push_back(indices.size(2) ? int(indices[t][b][0].item<std::int64_t>()) : -1);
            d.entropy.push_back(entropy[t][b].item<float>());
            d.logProb.push_back(logProb[t][b].item<float>());
            if (withWordProbs) d.wordProbs.push_back(toFloatVector(wordProbs[t][b]));
        }
    }
    return out;
}

bool CaptionScoreAccumulator::add(const Sample& sample, const DecodedCaption& caption) {
    auto refs = sceneReferences(sample);
    const bool exact = exactMatch(caption.words, refs);
    m_exact += exact;
    m_candidates.push_back(caption.words);
    m_references.push_back(std::move(refs));
    m_naming.addScene(caption.words, sample.objects);
    const auto targets = captionWordTargets(caption.words, sample.objects);
    const auto cellOf = [&](std::size_t w) {
        return caption.chosen[w] >= 0 ? caption.chosen[w]
                                      : int(std::max_element(caption.attention[w].begin(), caption.attention[w].end()) -
                                            caption.attention[w].begin());
    };
    // An object word is scored on its object's box; a relation word on the boxes of the two
    // objects it relates.
    for (std::size_t w = 0; w < caption.words.size() && w < caption.attention.size(); ++w) {
        if (targets[w].empty()) continue;
        GridDistribution grid{m_grid, m_grid, caption.attention[w]};
        const Box cell = cellBox(m_grid, m_grid, m_size, m_size, cellOf(w));
        double mass = 0;
        bool hit = false;
        for (int o : targets[w]) {
            const Box& box = sample.objects[size_t(o)].box;
            mass += gridMassInBox(grid, m_size, m_size, box);
            hit = hit || cellHitsBox(cell, box);
        }
        const WordClass wordClass = sceneWordClass(caption.words[w]);
        m_correctness.add(wordClassName(wordClass), std::min(mass, 1.0), hit);
        // An object word counts again under its object's size: do small objects draw the look?
        if (wordClass != WordClass::Relation && targets[w].size() == 1)
            if (const auto size = objectNameSize(sample.objects[size_t(targets[w].front())].name); !size.empty())
                m_correctness.add(objectSizeKey(size), std::min(mass, 1.0), hit);
    }
    return exact;
}

CaptionScores CaptionScoreAccumulator::scores() const {
    return captionScores(m_rule, corpusBleu(m_candidates, m_references), std::int64_t(m_candidates.size()), m_exact,
                         m_correctness, m_naming);
}

}  // namespace saccade
