#include "models/cost_stages.h"

#include <algorithm>

#include <torch/torch.h>

namespace saccade {

std::vector<std::pair<std::string, double>> CostRun::medianStages(const std::function<void()>& run) {
    run();
    std::map<std::string, std::vector<double>> samples;
    std::vector<std::string> order;
    for (int i = 0; i < options.repeats; ++i) {
        clock.reset();
        run();
        for (const auto& [stage, s] : clock.seconds()) {
            if (!samples.count(stage)) order.push_back(stage);
            samples[stage].push_back(s);
        }
        ++m_done;
        if (m_progress && !m_progress(double(m_done) / m_total)) throw CostCancelled{};
    }
    std::vector<std::pair<std::string, double>> out;
    for (const auto& stage : order) {
        auto& v = samples[stage];
        std::sort(v.begin(), v.end());
        out.emplace_back(stage, v[v.size() / 2]);
    }
    return out;
}

double sequentialFlops(torch::nn::Sequential& net, int channels, int height, int width, const torch::Device& device) {
    torch::NoGradGuard noGrad;
    auto x = torch::zeros({1, channels, height, width}, torch::TensorOptions().device(device));
    double flops = 0;
    for (auto& layer : *net) {
        const auto y = layer.forward(x);
        if (const auto* conv = layer.ptr()->as<torch::nn::Conv2dImpl>()) {
            const auto& w = conv->weight;
            flops += convFlops(double(w.size(1)), double(w.size(0)), double(w.size(2)), double(w.size(3)),
                               double(y.size(2)), double(y.size(3)));
        } else if (const auto* linear = layer.ptr()->as<torch::nn::LinearImpl>()) {
            flops += linearFlops(double(linear->weight.size(1)), double(linear->weight.size(0))) * double(y.numel() / y.size(-1));
        }
        x = y;
    }
    return flops;
}

RuleCost makeRuleCost(const std::string& variant, const std::string& rule,
                      const std::vector<std::pair<std::string, double>>& seconds, int batch,
                      const std::map<std::string, double>& flops) {
    RuleCost c;
    c.variant = variant;
    c.rule = rule;
    for (const auto& [stage, s] : seconds) {
        const auto f = flops.find(stage);
        c.stages.push_back({stage, 1000 * s / batch, f == flops.end() ? 0.0 : f->second / 1e6});
        c.msPerImage += c.stages.back().msPerImage;
        c.mflopsPerImage += c.stages.back().mflopsPerImage;
    }
    return c;
}

}  // namespace saccade
