#pragma once
// A tiny patch-attention classifier for tests: its config, and a checkpoint of its initial weights.

#include <cstdint>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "io/checkpoint.h"
#include "models/patch/patch_classifier.h"
#include "models/patch/patch_config.h"
#include "temp_dir.h"

namespace saccade::test {

/// 28x28 inputs, a 7x7 grid, 3 steps, small layers.
inline PatchConfig tinyPatchConfig(TrainingMode mode = TrainingMode::Soft) {
    PatchConfig c;
    c.imageSize = 28;
    c.grid = 7;
    c.featureDim = 16;
    c.hidden = 24;
    c.attnHidden = 12;
    c.steps = 3;
    c.mode = mode;
    return c;
}

/// The sidecar of a digits28 checkpoint with this config.
inline CheckpointInfo tinyPatchInfo(const PatchConfig& c) {
    CheckpointInfo info;
    info.modelType = "patch";
    info.configJson = patchConfigToJson(c);
    info.dataset = "digits28";
    info.seed = 1;
    return info;
}

/// Saves the initial weights of a tiny soft patch model (seeded) as `name` in `dir`.
inline std::string saveTinyPatch(const TempDir& dir, const std::string& name, std::uint64_t seed = 3) {
    torch::manual_seed(seed);
    PatchClassifier net(tinyPatchConfig());
    const auto path = dir.file(name);
    EXPECT_TRUE(saveCheckpoint(*net, nullptr, tinyPatchInfo(tinyPatchConfig()), path).ok());
    return path;
}

}  // namespace saccade::test
