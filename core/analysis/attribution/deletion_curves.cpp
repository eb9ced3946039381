#include "analysis/attribution/deletion_curves.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "analysis/attribution/faithfulness.h"

namespace saccade {

namespace {
constexpr std::size_t kCurveChunk = 64;  // images per outputProbs call (the model batches them)
}  // namespace

std::vector<int> cellsByImportance(const std::vector<double>& map) {
    std::vector<int> order(map.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return map[size_t(a)] > map[size_t(b)]; });
    return order;
}

std::vector<int> randomCellOrder(int cells, std::uint64_t seed) {
    std::vector<int> order(static_cast<size_t>(cells));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 random(seed);
    std::shuffle(order.begin(), order.end(), random);
    return order;
}

Result<std::vector<std::vector<float>>> batchedOutputProbs(AttentionModel& model, const std::vector<Image>& images,
                                                           const std::string& rule, std::uint64_t seed,
                                                           const std::function<bool(std::int64_t)>& afterChunk) {
    std::vector<std::vector<float>> probs;
    for (std::size_t first = 0; first < images.size(); first += kCurveChunk) {
        const std::vector<Image> chunk(images.begin() + long(first),
                                       images.begin() + long(std::min(images.size(), first + kCurveChunk)));
        auto p = model.outputProbs(chunk, rule, seed);
        if (!p) return Error{p.error()};
        if (p->size() != chunk.size())
            return Error{"the model gave " + std::to_string(p->size()) + " outputs for " + std::to_string(chunk.size()) +
                         " images"};
        for (auto& v : *p) probs.push_back(std::move(v));
        if (afterChunk && !afterChunk(std::int64_t(chunk.size()))) return Error{"cancelled"};
    }
    return probs;
}

std::vector<double> curveFractions(int points) {
    std::vector<double> fractions;
    for (int k = 0; k <= std::max(1, points); ++k) fractions.push_back(double(k) / std::max(1, points));
    return fractions;
}

double curveArea(const std::vector<double>& fractions, const std::vector<double>& values) {
    double area = 0;
    for (size_t k = 1; k < fractions.size() && k < values.size(); ++k)
        area += (fractions[k] - fractions[k - 1]) * (values[k] + values[k - 1]) / 2;
    return area;
}

Result<DeletionInsertion> deletionInsertionCurves(AttentionModel& model, const Image& image, int rows, int cols,
                                                  const std::vector<double>& map, int target, const std::string& rule,
                                                  std::uint64_t seed, const std::vector<double>& fractions) {
    const int cells = rows * cols;
    if (int(map.size()) != cells)
        return Error{"a map of " + std::to_string(map.size()) + " cells on a " + std::to_string(rows) + "x" +
                     std::to_string(cols) + " grid"};
    const auto order = cellsByImportance(map);
    std::vector<Image> copies;
    for (double fraction : fractions) {  // deletion: the first k cells filled
        const long k = std::clamp(std::lround(fraction * cells), 0L, long(cells));
        copies.push_back(occludeCells(image, rows, cols, std::vector<int>(order.begin(), order.begin() + k)));
    }
    for (double fraction : fractions) {  // insertion: all but the first k cells filled
        const long k = std::clamp(std::lround(fraction * cells), 0L, long(cells));
        copies.push_back(occludeCells(image, rows, cols, std::vector<int>(order.begin() + k, order.end())));
    }
    auto probs = batchedOutputProbs(model, copies, rule, seed);
    if (!probs) return Error{probs.error()};
    DeletionInsertion out;
    out.fractions = fractions;
    for (size_t i = 0; i < copies.size(); ++i) {
        const auto& p = (*probs)[i];
        const double value = target >= 0 && target < int(p.size()) ? double(p[size_t(target)]) : 0.0;
        (i < fractions.size() ? out.deletion : out.insertion).push_back(value);
    }
    out.deletionAuc = curveArea(fractions, out.deletion);
    out.insertionAuc = curveArea(fractions, out.insertion);
    out.forwards = std::int64_t(copies.size());
    return out;
}

}  // namespace saccade
