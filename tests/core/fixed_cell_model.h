#pragma once
// A hand-set attention model for tests: a rows x cols grid over a square image that always puts
// all its attention on one cell and chooses it, and answers class `answer`.

#include "trace/run_set.h"
#include "models/attention_model.h"

namespace saccade::test {

class FixedCellModel : public AttentionModel {
public:
    FixedCellModel(int size, int grid, int cell, int answer = 0) : m_size(size), m_grid(grid), m_cell(cell), m_answer(answer) {
        m_info.modelType = "fixed";
    }
    const CheckpointInfo& info() const override { return m_info; }
    std::string deviceName() const override { return "cpu"; }
    std::vector<std::string> classNames() const override { return {"a", "b"}; }
    int imageSize() const override { return m_size; }
    int channels() const override { return 1; }
    int steps() const override { return 2; }
    TrainingMode trainedMode() const override { return TrainingMode::Hard; }
    std::string deterministicRule() const override { return "argmax"; }
    std::string summary() const override { return "fixed cell"; }

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override {
        Trace t;
        t.modelId = "fixed";
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.imageWidth = t.imageHeight = m_size;
        t.classNames = classNames();
        for (int s = 0; s < steps(); ++s) {
            TraceStep step;
            step.grid = GridDistribution{m_grid, m_grid, std::vector<float>(size_t(m_grid * m_grid), 0.f)};
            step.grid->probs[size_t(m_cell)] = 1.f;
            step.chosenCells = {m_cell};
            t.steps.push_back(step);
        }
        t.output.label = m_answer;
        t.output.probs = {m_answer == 0 ? 1.f : 0.f, m_answer == 1 ? 1.f : 0.f};
        t.groundTruth = truth;
        return t;
    }

    Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                              const std::optional<GroundTruth>& truth, int kSample = 10,
                              const Progress& progress = {}) override {
        auto chunk = [&](std::uint64_t first, int count) -> Result<std::vector<RunRecord>> {
            std::vector<RunRecord> records(static_cast<size_t>(count));
            for (int i = 0; i < count; ++i) {
                records[size_t(i)].seed = runSeed(first, size_t(i));
                records[size_t(i)].label = m_answer;
                records[size_t(i)].cells = std::vector<int>(size_t(steps()), m_cell);
                records[size_t(i)].entropy = std::vector<float>(size_t(steps()), 0.f);
            }
            return records;
        };
        return collectRuns(*this, image, runs, seed, imageId, truth, kSample, "", chunk, progress);
    }

    Result<EvalReport> evaluate(const Dataset&, Split, const std::vector<std::string>&, std::int64_t, std::uint64_t,
                                const Progress& = {}, const Shard& = {}) override {
        return Error{"not used"};
    }

private:
    CheckpointInfo m_info;
    int m_size, m_grid, m_cell, m_answer;
};

}  // namespace saccade::test
