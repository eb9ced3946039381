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

// Each kept position's label: a sequence model's source token, or a ViT's "[CLS]" and "row,col".
std::vector<std::string> positionLabels(const Atlas& a, std::int64_t input, std::int64_t n, const RecordedInputs& read) {
    std::vector<std::string> labels(static_cast<std::size_t>(n));
    if (!read.tokens.empty()) {
        const auto& source = read.tokens.at(std::size_t(input));
        for (std::int64_t i = 0; i < n; ++i) labels[std::size_t(i)] = i < std::int64_t(source.size()) ? source[std::size_t(i)] : "";
        return labels;
    }
    for (std::int64_t i = 0; i < n; ++i)
        labels[std::size_t(i)] = i == 0 ? "[CLS]"
                                 : a.gridCols > 0 ? std::to_string((i - 1) / a.gridCols) + "," + std::to_string((i - 1) % a.gridCols)
                                                  : std::to_string(i);
    return labels;
}

// Queries and keys of one head, kept positions only, as rows: the keys shifted to the queries'
// mean and both scaled to equal mean norms (the attention of every query unchanged).
struct HeadRows {
    torch::Tensor q, k;                     // [P, d] each, float64
    std::vector<std::pair<int, int>> where;  // (input, position) per row
};

HeadRows headRows(const FidelitySource& src, int head, Atlas& a) {
    const auto q = src.q.select(1, head).to(torch::kDouble), k = src.k.select(1, head).to(torch::kDouble);  // [B, N, d]
    const auto keep = src.keep.defined() ? src.keep.to(torch::kBool) : torch::ones({q.size(0), q.size(1)}, torch::kBool);
    HeadRows r;
    const auto kept = keep.nonzero();  // [P, 2]: (input, position), in order
    const auto acc = kept.accessor<std::int64_t, 2>();
    for (std::int64_t i = 0; i < kept.size(0); ++i) r.where.emplace_back(int(acc[i][0]), int(acc[i][1]));
    r.q = q.index({kept.select(1, 0), kept.select(1, 1)});
    r.k = k.index({kept.select(1, 0), kept.select(1, 1)});
    const auto shift = r.q.mean(0) - r.k.mean(0);
    r.k = r.k + shift;
    a.keyShiftNorm = shift.norm().item<double>();
    const double qNorm = r.q.norm(2, 1).mean().item<double>(), kNorm = r.k.norm(2, 1).mean().item<double>();
    a.scale = qNorm > 0 && kNorm > 0 ? std::sqrt(kNorm / qNorm) : 1.0;
    r.q = r.q * a.scale;
    r.k = r.k / a.scale;
    return r;
}

// Per kept (input, position): the position of the key that query attends to most (the largest
// score among its input's kept keys; the scale of the scores does not move it).
std::map<std::pair<int, int>, int> mostAttended(const FidelitySource& src, int head) {
    const auto q = src.q.select(1, head).to(torch::kFloat), k = src.k.select(1, head).to(torch::kFloat);  // [B, N, d]
    auto scores = torch::matmul(q, k.transpose(1, 2));                                                     // [B, N, N]
    const auto keep = src.keep.defined() ? src.keep.to(torch::kBool) : torch::ones({q.size(0), q.size(1)}, torch::kBool);
    scores = scores.masked_fill(keep.logical_not().unsqueeze(1), -INFINITY);
    const auto best = scores.argmax(2).contiguous();
    const auto b = best.accessor<std::int64_t, 2>();
    const auto kept = keep.accessor<bool, 2>();
    std::map<std::pair<int, int>, int> out;
    for (std::int64_t i = 0; i < best.size(0); ++i)
        for (std::int64_t n = 0; n < best.size(1); ++n)
            if (kept[i][n]) out[{int(i), int(n)}] = int(b[i][n]);
    return out;
}

}  // namespace

Result<Atlas> buildAtlas(const std::string& path, const AtlasOptions& o, const std::function<bool(double)>& progress) {
    if (o.limit < 1) return Error{"--limit must be at least 1"};
    const auto start = std::chrono::steady_clock::now();
    RecordedInputs read;
    auto sources = modelFidelitySources(path, o.limit, "the atlas places each head's queries and keys", &read);
    if (!sources) return Error{sources.error()};
    if (sources->empty()) return Error{path + ": no attention layer recorded its queries and keys"};
    Atlas a;
    a.model = path;
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
    const auto attended = mostAttended(src, o.head - 1);
    std::vector<std::vector<std::string>> labels(static_cast<std::size_t>(a.inputs));
    const auto P = std::int64_t(rows.where.size());
    for (std::int64_t i = 0; i < 2 * P; ++i) {
        const auto [input, position] = rows.where[std::size_t(i % P)];
        auto& l = labels[std::size_t(input)];
        if (l.empty()) l = positionLabels(a, input, src.q.size(2), read);
        a.points.push_back({input, position, i < P, l[std::size_t(position)], (*xy)[std::size_t(2 * i)],
                            (*xy)[std::size_t(2 * i + 1)], i < P ? attended.at({input, position}) : -1});
    }
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
    const auto apart = [&](int p, int q) { return std::min(atlasPositionsApart(a, p, q), 3); };
    for (const auto& q : a.points) {
        const auto keys = keysOf.find(q.input);
        if (!q.query || keys == keysOf.end()) continue;
        const AtlasPoint* best = nullptr;
        double bestD = 0;
        for (const auto* k : keys->second) {
            const double d = (k->x - q.x) * (k->x - q.x) + (k->y - q.y) * (k->y - q.y);
            if (!best || d < bestD) best = k, bestD = d;
            o.chance[std::size_t(apart(k->position, q.position))] += 1.0 / double(keys->second.size());
        }
        ++o.queries;
        o.nearest[std::size_t(apart(best->position, q.position))] += 1;
        o.attended[std::size_t(apart(q.attends, q.position))] += 1;
    }
    for (auto* share : {&o.attended, &o.nearest, &o.chance})
        for (double& v : *share) v = o.queries > 0 ? v / o.queries : 0.0;
    return o;
}

std::string atlasToJson(const Atlas& a, int indent) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : a.points)
        points.push_back({{"input", p.input}, {"position", p.position}, {"kind", p.query ? "query" : "key"},
                          {"label", p.label}, {"x", p.x}, {"y", p.y},
                          {"attends", p.query ? nlohmann::json(p.attends) : nlohmann::json(nullptr)}});
    nlohmann::json j{{"schema", "saccade.atlas"}, {"version", 1}, {"model", a.model}, {"layer", a.layer},
                     {"head", a.head}, {"layers", a.layers}, {"heads", a.heads}, {"layer_name", a.layerName},
                     {"inputs", a.inputs}, {"head_dim", a.headDim}, {"positions", a.positions},
                     {"grid_cols", a.gridCols > 0 ? nlohmann::json(a.gridCols) : nlohmann::json(nullptr)},
                     {"method", a.method}, {"key_shift_norm", a.keyShiftNorm}, {"scale", a.scale},
                     {"seconds", a.seconds}, {"points", points}};
    return j.dump(indent);
}

}  // namespace saccade
