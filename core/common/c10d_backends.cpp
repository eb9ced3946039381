#include "common/c10d_backends.h"

#include <chrono>

#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/torch.h>

#include "common/result.h"

namespace saccade {

std::string withoutSourcePrefix(const std::string& text) {
    std::string line = firstLine(text);
    if (!line.empty() && line.front() == '[') {
        const auto close = line.find("] ");
        if (close != std::string::npos && line.find(':') < close) line = line.substr(close + 2);
    }
    return line;
}

std::vector<TrainingBackend> checkTrainingBackends() {
    std::vector<TrainingBackend> backends;
    TrainingBackend gloo{"gloo", false, ""};
    try {
        auto store = c10::make_intrusive<c10d::HashStore>();
        auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(10));
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        options->threads = 1;
        auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, 0, 1, options);
        std::vector<at::Tensor> tensors{torch::tensor({1.0, 2.0, 3.0}, torch::kDouble)};
        group->allreduce(tensors)->wait();
        gloo.available = tensors[0].sum().item<double>() == 6.0;
        gloo.detail = gloo.available ? "works (an all-reduce on a one-rank group; gradients on any device go through the CPU)"
                                     : "an all-reduce on a one-rank group gave a wrong sum";
    } catch (const std::exception& e) {
        gloo.detail = "fails: " + withoutSourcePrefix(e.what());
    }
    backends.push_back(gloo);
    backends.push_back({"nccl", false,
                        torch::cuda::is_available()
                            ? "not used: Saccade's groups run on Gloo, CUDA gradients staged through the CPU"
                        : libTorchHasCuda() ? "not used: this LibTorch has CUDA, but no GPU answers"
                                        : "not in this LibTorch (CPU-only); needs a CUDA build of LibTorch with NCCL"});
    return backends;
}

bool libTorchHasCuda() { return c10::impl::hasDeviceGuardImpl(c10::DeviceType::CUDA); }

}  // namespace saccade
