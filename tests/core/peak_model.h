#pragma once
// Hand-made deterministic test fixtures: a model without sampled runs whose attention and answer
// follow the image, and a small in-memory dataset of single bright squares.
//   PeakModel: a 3x3 grid over a 12x12 grey image (cells of 4 px). Rule "peak" (deterministic)
//   puts all attention on the cell with the largest pixel sum, rule "centre" on the centre cell;
//   the answer is class 1 when the brightest cell lies in the right-hand column, else class 0,
//   with probability 0.9.
//   SquareDataset: test image i has a 4x4 white square at (x, y) = ((5 * i) % 9, (2 * i) % 9), its
//   box that square (none with boxes = false), its label 1 when x >= 8, else 0.

#include <algorithm>

#include "data/dataset.h"
#include "models/attention_model.h"
#include "trace/run_set.h"

namespace saccade::test {

class PeakModel : public AttentionModel {
public:
    PeakModel() { m_info.modelType = "peak"; }
    const CheckpointInfo& info() const override { return m_info; }
    std::string deviceName() const override { return "cpu"; }
    std::vector<std::string> classNames() const override { return {"left", "right"}; }
    int imageSize() const override { return 12; }
    int channels() const override { return 1; }
    int steps() const override { return 1; }
    TrainingMode trainedMode() const override { return TrainingMode::Soft; }
    std::string deterministicRule() const override { return "peak"; }
    std::string summary() const override { return "peak"; }
    bool hasStochasticRuns() const override { return false; }
    std::vector<std::string> evaluationRules() const override { return {"peak"}; }
    RuleMenu ruleMenu() const override { return {{"peak", "centre"}, {}}; }
    CellGrid cellGrid() const override { return {3, "fixed", "none"}; }
    int traces = 0;  ///< calls of trace()

    static int brightestCell(const Image& image) {
        std::vector<long> sums(9, 0);
        for (int y = 0; y < 12; ++y)
            for (int x = 0; x < 12; ++x) sums[size_t((y / 4) * 3 + x / 4)] += image.at(x, y);
        return int(std::max_element(sums.begin(), sums.end()) - sums.begin());
    }

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override {
        if (rule != "peak" && rule != "centre") return Error{"'" + rule + "' is not a rule of the peak model"};
        ++traces;
        Trace t;
        t.modelId = "peak";
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.imageWidth = t.imageHeight = 12;
        t.classNames = classNames();
        const int peak = brightestCell(image);
        TraceStep step;
        step.grid = GridDistribution{3, 3, std::vector<float>(9, 0.f)};
        step.grid->probs[size_t(rule == "peak" ? peak : 4)] = 1.f;
        t.steps.push_back(step);
        t.output.label = peak % 3 == 2 ? 1 : 0;
        t.output.probs = t.output.label == 1 ? std::vector<float>{0.1f, 0.9f} : std::vector<float>{0.9f, 0.1f};
        t.groundTruth = truth;
        return t;
    }
    Result<RunSet> sampleRuns(const Image&, int, std::uint64_t, const std::string&, const std::optional<GroundTruth>&,
                              int = 10, const Progress& = {}) override {
        return Error{"the peak model has no sampled runs"};
    }
    Result<EvalReport> evaluate(const Dataset&, Split, const std::vector<std::string>&, std::int64_t, std::uint64_t,
                                const Progress& = {}, const Shard& = {}) override {
        return Error{"not used"};
    }

private:
    CheckpointInfo m_info;
};

class SquareDataset : public Dataset {
public:
    explicit SquareDataset(bool boxes, std::int64_t size = 9) : m_boxes(boxes) {
        m_info.name = boxes ? "squares" : "squares-unboxed";
        m_info.width = m_info.height = 12;
        m_info.channels = 1;
        m_info.trainSize = m_info.testSize = size;
        m_info.classNames = {"left", "right"};
    }
    const DatasetInfo& info() const override { return m_info; }
    const ObjectSource* objectSource() const override { return nullptr; }
    static std::pair<int, int> corner(std::int64_t i) { return {int((5 * i) % 9), int((2 * i) % 9)}; }
    Sample sample(Split, std::int64_t index) const override {
        Sample s;
        s.image = Image::zeros(12, 12, 1);
        const auto [x0, y0] = corner(index);
        for (int y = y0; y < y0 + 4; ++y)
            for (int x = x0; x < x0 + 4; ++x) s.image.at(x, y) = 255;
        s.label = x0 >= 8 ? 1 : 0;
        if (m_boxes) s.box = Box{double(x0), double(y0), 4, 4};
        return s;
    }

private:
    DatasetInfo m_info;
    bool m_boxes;
};

}  // namespace saccade::test
