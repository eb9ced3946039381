#pragma once
// A tiny recurrent attention model for tests: its config, and a checkpoint of its initial weights.

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "models/ram/ram_config.h"
#include "models/ram/ram_network.h"
#include "io/checkpoint.h"

namespace saccade::test {

/// 28x28 inputs, 3 glimpses of 2 scales (6 and 12 pixels), small layers.
inline RamConfig tinyRamConfig(int imageSize = 28) {
    RamConfig c;
    c.imageSize = imageSize;
    c.glimpseSize = 6;
    c.scales = 2;
    c.glimpses = 3;
    c.glimpseHidden = 16;
    c.glimpseDim = 24;
    c.hidden = 24;
    c.locationStd = 0.2;
    return c;
}

/// Saves a freshly initialised (torch seed `initSeed`) RAM with a digits28 sidecar at `path`.
inline std::string saveTinyRam(const std::string& path, const RamConfig& config, std::uint64_t initSeed) {
    torch::manual_seed(initSeed);
    RamNetwork net(config);
    CheckpointInfo info;
    info.modelType = "ram";
    info.configJson = ramConfigToJson(config);
    info.dataset = "digits28";
    info.seed = 1;
    EXPECT_TRUE(saveCheckpoint(*net, nullptr, info, path).ok());
    return path;
}

}  // namespace saccade::test
