#include "common/device.h"
#include "common/device_list.h"

#include <torch/torch.h>

namespace saccade {

Result<torch::Device> resolveDevice(const std::string& spec) {
    const bool cuda = torch::cuda::is_available();
    if (spec == "auto") return cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    if (spec == "cpu") return torch::Device(torch::kCPU);
    if (spec.rfind("cuda", 0) == 0) {
        if (!cuda) {
            return Error{"device '" + spec +
                         "' asked for, but CUDA is not available (this LibTorch build or this "
                         "machine has no CUDA device); use --device cpu"};
        }
        try {
            torch::Device device(spec);
            const auto count = static_cast<int>(torch::cuda::device_count());
            if (device.has_index() && device.index() >= count) {
                return Error{"device '" + spec + "' does not exist: this machine has " +
                             std::to_string(count) + " CUDA device(s)"};
            }
            return device;
        } catch (const c10::Error&) {
            // fall through to the generic message
        }
    }
    return Error{"unknown device '" + spec + "' (use auto, cpu, cuda or cuda:N)"};
}

std::vector<std::string> availableDeviceNames() {
    std::vector<std::string> names{"cpu"};
    if (torch::cuda::is_available()) {
        const auto count = static_cast<int>(torch::cuda::device_count());
        for (int i = 0; i < count; ++i) names.push_back("cuda:" + std::to_string(i));
    }
    return names;
}

void seedEverything(std::uint64_t seed) { torch::manual_seed(seed); }

}  // namespace saccade
