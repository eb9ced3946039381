#pragma once
// A differentiable two-layer classifier for tests of maps: logits = W2 relu(W1 x + b1) + b2 over
// S x S grey images (x in [0, 1], row-major), its layers "hidden" and "out" offered as parameter
// groups from the top, and an "attention" that ignores the model: each cell's mean brightness, an
// input-only map such as an edge detector's.

#include <torch/torch.h>

#include "models/attention_model.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "models/parameter_groups.h"

namespace saccade::test {

struct TwoLayerNetImpl : torch::nn::Module {
    TwoLayerNetImpl(int inputs, int hidden, int classes)
        : hiddenLayer(register_module("hidden", torch::nn::Linear(inputs, hidden))),
          outLayer(register_module("out", torch::nn::Linear(hidden, classes))) {}
    torch::Tensor forward(const torch::Tensor& x) { return outLayer(torch::relu(hiddenLayer(x.flatten(1)))); }
    torch::nn::Linear hiddenLayer, outLayer;
};
TORCH_MODULE(TwoLayerNet);

class TwoLayerModel : public AttentionModel {
public:
    TwoLayerModel(int size, int grid, int hidden)
        : m_size(size), m_grid(grid), m_net(size * size, hidden, 3),
          m_forward(torch::kCPU, "argmax", [this](const torch::Tensor& x, const std::string& rule) {
              TORCH_CHECK(rule == "argmax", "two-layer model: only argmax, not '", rule, "'");
              return m_net->forward(x);
          }, {}, FunctionGradientForward::Weights{[this] { return layerGroupsFromTop(*m_net); }, {}}) {
        m_info.modelType = "two-layer";
    }
    TwoLayerNet& net() { return m_net; }
    const CheckpointInfo& info() const override { return m_info; }
    std::string deviceName() const override { return "cpu"; }
    std::vector<std::string> classNames() const override { return {"a", "b", "c"}; }
    int imageSize() const override { return m_size; }
    int channels() const override { return 1; }
    int steps() const override { return 1; }
    TrainingMode trainedMode() const override { return TrainingMode::Soft; }
    std::string deterministicRule() const override { return "argmax"; }
    std::string summary() const override { return "two-layer"; }
    std::string displayName() const override { return "two-layer test model"; }
    CellGrid cellGrid() const override { return {m_grid, "none", "dense"}; }
    GradientForward* gradientForward() override { return &m_forward; }

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth = std::nullopt) override {
        auto x = modelInput(image, m_size, 1, torch::kCPU);
        if (!x) return Error{x.error()};
        torch::NoGradGuard noGrad;
        Trace t;
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.imageWidth = t.imageHeight = m_size;
        TraceStep step;
        const auto cells = torch::adaptive_avg_pool2d(*x, {m_grid, m_grid}).flatten();
        const auto total = cells.sum().item<float>();
        step.grid = GridDistribution{m_grid, m_grid, {}};
        for (std::int64_t i = 0; i < cells.numel(); ++i)
            step.grid->probs.push_back(total > 0 ? cells[i].item<float>() / total : 0.f);
        t.steps.push_back(step);
        t.output.probs = toFloatVector(torch::softmax(m_forward.logits(*x, rule), -1)[0]);
        t.groundTruth = truth;
        return t;
    }
    Result<RunSet> sampleRuns(const Image&, int, std::uint64_t, const std::string&, const std::optional<GroundTruth>&, int,
                              const Progress&) override {
        return Error{"no runs"};
    }
    Result<EvalReport> evaluate(const Dataset&, Split, const std::vector<std::string>&, std::int64_t, std::uint64_t,
                                const Progress&, const Shard&) override {
        return Error{"no evaluation"};
    }

private:
    int m_size, m_grid;
    TwoLayerNet m_net;
    FunctionGradientForward m_forward;
    CheckpointInfo m_info;
};

}  // namespace saccade::test
