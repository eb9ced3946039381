#include "analysis/atlas/atlas.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "analysis/length/model_attention_inputs.h"

namespace saccade {
namespace {

QkvKind kindOf(const std::string& attention) {
    return attention == "decoder" ? QkvKind::CausalSelf : attention == "cross" ? QkvKind::Cross : QkvKind::Self;
}

// The labels of one input's positions, `n` of them: a sequence model's tokens (`tokens` of that
// input: the source, or what the decoder read), else a ViT's "[CLS]" and "row,col".
std::vector<std::string> positionLabels(const Atlas& a, std::int64_t n, const std::vector<std::string>* tokens) {
    std::vector<std::string> labels(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        if (tokens) labels[std::size_t(i)] = i < std::int64_t(tokens->size()) ? (*tokens)[std::size_t(i)] : "";
        else
            labels[std::size_t(i)] = i == 0 ? "[CLS]"
                                     : a.gridCols > 0 ? std::to_string((i - 1) / a.gridCols) + "," + std::to_string((i - 1) % a.gridCols)
                                                      : std::to_string(i);
    }
    return labels;
}

// Queries and keys of one head, kept positions only, as rows: the keys shifted to the queries'
// mean and both scaled to equal mean norms (the attention of every query unchanged).
struct HeadRows {
    torch::Tensor q, k;                                // [P, d] and [R, d], float64
    std::vector<std::pair<int, int>> queryAt, keyAt;  // (input, position) per row
};

torch::Tensor queriesKept(const FidelitySource& src) {
    const auto& keep = src.queryKeep.defined() ? src.queryKeep : src.keep;
    return keep.defined() ? keep.to(torch::kBool) : torch::ones({src.q.size(0), src.q.size(2)}, torch::kBool);
}

torch::Tensor keysKept(const FidelitySource& src) {
    return src.keep.defined() ? src.keep.to(torch::kBool) : torch::ones({src.k.size(0), src.k.size(2)}, torch::kBool);
}

// The rows of `x` [B, N, d] at the kept (input, position) pairs, and those pairs in order.
torch::Tensor keptRows(const torch::Tensor& x, const torch::Tensor& keep, std::vector<std::pair<int, int>>& at) {
    const auto kept = keep.nonzero();  // [P, 2]: (input, position), in order
    const auto acc = kept.accessor<std::int64_t, 2>();
    for (std::int64_t i = 0; i < kept.size(0); ++i) at.emplace_back(int(acc[i][0]), int(acc[i][1]));
    return x.index({kept.select(1, 0), kept.select(1, 1)});
}

HeadRows headRows(const FidelitySource& src, int head, Atlas& a) {
    HeadRows r;
    r.q = keptRows(src.q.select(1, head).to(torch::kDouble), queriesKept(src), r.queryAt);
    r.k = keptRows(src.k.select(1, head).to(torch::kDouble), keysKept(src), r.keyAt);
    const auto shift = r.q.mean(0) - r.k.mean(0);
    r.k = r.k + shift;
    a.keyShiftNorm = shift.norm().item<double>();
    const double qNorm = r.q.norm(2, 1).mean().item<double>(), kNorm = r.k.norm(2, 1).mean().item<double>();
    a.scale = qNorm > 0 && kNorm > 0 ? std::sqrt(kNorm / qNorm) : 1.0;
    r.q = r.q * a.scale;
    r.k = r.k / a.scale;
    return r;
}

// Per kept (input, query position): the position of the key it attends to most (the largest score
// among its input's kept keys, and under causal attention those up to its own position; the scale
// of the scores does not move it).
std::map<std::pair<int, int>, int> mostAttended(const FidelitySource& src, int head) {
    const auto q = src.q.select(1, head).to(torch::kFloat), k = src.k.select(1, head).to(torch::kFloat);  // [B, N, d], [B, M, d]
    auto scores = torch::matmul(q, k.transpose(1, 2));                                                     // [B, N, M]
    scores = scores.masked_fill(keysKept(src).logical_not().unsqueeze(1), -INFINITY);
    if (src.kind == QkvKind::CausalSelf)
        scores = scores.masked_fill(torch::ones({q.size(1), k.size(1)}, torch::kBool).triu(1).unsqueeze(0), -INFINITY);
    const auto best = scores.argmax(2).contiguous();
    const auto b = best.accessor<std::int64_t, 2>();
    const auto queries = queriesKept(src);
    const auto kept = queries.accessor<bool, 2>();
    std::map<std::pair<int, int>, int> out;
    for (std::int64_t i = 0; i < best.size(0); ++i)
        for (std::int64_t n = 0; n < best.size(1); ++n)
            if (kept[i][n]) out[{int(i), int(n)}] = int(b[i][n]);
    return out;
}

// The layers of the asked attention, in the model's order.
Result<std::vector<FidelitySource>> attentionLayers(const std::string& path, const AtlasOptions& o, RecordedInputs& read) {
    AttentionRecordRequest request;
    request.count = o.limit;
    request.need = "the atlas places each head's queries and keys";
    request.dataset = o.dataset;
    request.decoder = o.attention != "encoder";
    auto sources = modelFidelitySources(path, request, &read);
    if (!sources) return Error{sources.error()};
    std::vector<FidelitySource> out;
    for (auto& s : *sources)
        if (s.kind == kindOf(o.attention)) out.push_back(std::move(s));
    if (out.empty())
        return Error{path + (o.attention == "encoder" ? std::string(": no attention layer recorded its queries and keys")
                                                      : ": no " + o.attention + " attention layer recorded its queries and keys")};
    return out;
}

// Per point of the map, its label.
std::vector<AtlasPoint> atlasPoints(const Atlas& a, const HeadRows& rows, const std::vector<double>& xy,
                                    const std::map<std::pair<int, int>, int>& attended, const FidelitySource& src,
                                    const RecordedInputs& read) {
    const auto labelsOf = [&](bool query, int input) {
        const bool decoderSide = a.attention == "decoder" || (a.attention == "cross" && query);
        const auto& tokens = decoderSide ? read.decoderTokens : read.tokens;
        return positionLabels(a, (query ? src.q : src.k).size(2), tokens.empty() ? nullptr : &tokens.at(std::size_t(input)));
    };
    std::map<std::pair<bool, int>, std::vector<std::string>> labels;  // (query, input)
    std::vector<AtlasPoint> points;
    const auto P = rows.queryAt.size();
    for (std::size_t i = 0; i < P + rows.keyAt.size(); ++i) {
        const bool query = i < P;
        const auto [input, position] = query ? rows.queryAt[i] : rows.keyAt[i - P];
        auto& l = labels[{query, input}];
        if (l.empty()) l = labelsOf(query, input);
        points.push_back({input, position, query, l[std::size_t(position)], xy[2 * i], xy[2 * i + 1],
                          query ? attended.at({input, position}) : -1});
    }
    return points;
}

}  // namespace

const std::vector<std::string>& atlasAttentions() {
    static const std::vector<std::string> names{"encoder", "decoder", "cross"};
    return names;
}

Result<Atlas> buildAtlas(const std::string& path, const AtlasOptions& o, const std::function<bool(double)>& progress) {
    if (o.limit < 1) return Error{"--limit must be at least 1"};
    const auto& kinds = atlasAttentions();
    if (std::find(kinds.begin(), kinds.end(), o.attention) == kinds.end())
        return Error{"--attention must be encoder, decoder or cross, got '" + o.attention + "'"};
    const auto start = std::chrono::steady_clock::now();
    RecordedInputs read;
    auto sources = attentionLayers(path, o, read);
    if (!sources) return Error{sources.error()};
    Atlas a;
    a.model = path;
    a.attention = o.attention;
    a.layers = int(sources->size());
    if (o.layer < 1 || o.layer > a.layers)
        return Error{"--layer must be 1-" + std::to_string(a.layers) + " (the model has " + std::to_string(a.layers) + " layers)"};
    const auto& src = (*sources)[std::size_t(o.layer - 1)];
    a.heads = int(src.q.size(1));
    if (o.head < 1 || o.head > a.heads)
        return Error{"--head must be 1-" + std::to_string(a.heads) + " (the layer has " + std::to_string(a.heads) + " heads)"};
    a.layer = o.layer;
    a.head = o.head;
    a.layerName = src.name;
    a.modelLayer = src.layer;
    a.inputs = src.q.size(0);
    a.headDim = src.q.size(3);
    a.method = o.embedding.method;
    if (!read.sentences.empty()) {
        a.positions = "token";
        a.sentences = read.sentences;
        a.decoderTokens = read.decoderTokens;
        a.dataset = o.dataset;
    } else {
        a.dataset = read.dataset;
        a.positions = "patch";
        const auto patches = src.q.size(2) - 1;
        const auto side = std::int64_t(std::llround(std::sqrt(double(patches))));
        a.gridCols = side * side == patches ? int(side) : 0;
    }
    const auto rows = headRows(src, o.head - 1, a);
    const auto both = torch::cat({rows.q, rows.k}).to(torch::kFloat).contiguous();
    const std::vector<float> points(both.data_ptr<float>(), both.data_ptr<float>() + both.numel());
    auto xy = embed2d(points, both.size(1), o.embedding, progress);
    if (!xy) return Error{xy.error()};
    a.points = atlasPoints(a, rows, *xy, mostAttended(src, o.head - 1), src, read);
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return a;
}

int atlasPositionsApart(const Atlas& a, int p, int q) {
    if (a.positions != "patch" || a.gridCols <= 0) return std::abs(p - q);
    if (p == 0 || q == 0) return p == q ? 0 : 3;
    return std::max(std::abs((p - 1) / a.gridCols - (q - 1) / a.gridCols), std::abs((p - 1) % a.gridCols - (q - 1) % a.gridCols));
}

AtlasOffsets atlasOffsets(const Atlas& a) {
    std::map<int, std::vector<const AtlasPoint*>> keysOf;  // per input
    for (const auto& p : a.points)
        if (!p.query) keysOf[p.input].push_back(&p);
    AtlasOffsets o;
    o.positional = a.attention != "cross";
    const auto apart = [&](int p, int q) { return std::min(atlasPositionsApart(a, p, q), 3); };
    for (const auto& q : a.points) {
        const auto keys = keysOf.find(q.input);
        if (!q.query || keys == keysOf.end()) continue;
        const AtlasPoint* best = nullptr;
        double bestD = 0;
        for (const auto* k : keys->second) {
            const double d = (k->x - q.x) * (k->x - q.x) + (k->y - q.y) * (k->y - q.y);
            if (!best || d < bestD) best = k, bestD = d;
            if (o.positional) o.chance[std::size_t(apart(k->position, q.position))] += 1.0 / double(keys->second.size());
        }
        ++o.queries;
        o.nearestIsAttended += best->position == q.attends ? 1 : 0;
        // A causal query's attended key is one of those up to its position: chance draws from them.
        const auto reachable = a.attention == "decoder" ? std::count_if(keys->second.begin(), keys->second.end(),
                                                                       [&](const AtlasPoint* k) { return k->position <= q.position; })
                                                        : std::ptrdiff_t(keys->second.size());
        o.chanceIsAttended += 1.0 / double(std::max<std::ptrdiff_t>(reachable, 1));
        if (!o.positional) continue;
        o.nearest[std::size_t(apart(best->position, q.position))] += 1;
        o.attended[std::size_t(apart(q.attends, q.position))] += 1;
    }
    for (auto* share : {&o.attended, &o.nearest, &o.chance})
        for (double& v : *share) v = o.queries > 0 ? v / o.queries : 0.0;
    for (double* share : {&o.nearestIsAttended, &o.chanceIsAttended}) *share = o.queries > 0 ? *share / o.queries : 0.0;
    return o;
}

std::string atlasToJson(const Atlas& a, int indent) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : a.points)
        points.push_back({{"input", p.input}, {"position", p.position}, {"kind", p.query ? "query" : "key"},
                          {"label", p.label}, {"x", p.x}, {"y", p.y},
                          {"attends", p.query ? nlohmann::json(p.attends) : nlohmann::json(nullptr)}});
    nlohmann::json j{{"schema", "saccade.atlas"}, {"version", 1}, {"model", a.model}, {"attention", a.attention}, {"layer", a.layer},
                     {"head", a.head}, {"layers", a.layers}, {"heads", a.heads}, {"layer_name", a.layerName},
                     {"inputs", a.inputs}, {"head_dim", a.headDim}, {"positions", a.positions},
                     {"grid_cols", a.gridCols > 0 ? nlohmann::json(a.gridCols) : nlohmann::json(nullptr)},
                     {"method", a.method}, {"key_shift_norm", a.keyShiftNorm}, {"scale", a.scale},
                     {"dataset", a.dataset.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.dataset)},
                     {"seconds", a.seconds}, {"points", points}};
    return j.dump(indent);
}

}  // namespace saccade
