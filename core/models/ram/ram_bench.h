#pragma once
// Benchmark of the Recurrent Attention Model on the network of ../shared/bench/ram_reference.py
// (60x60 inputs, 6 glimpses, g = 12, k = 3, s = 2, hidden 256): N stochastic episodes of one
// image in one batched call, and training images per second (one Adam step of the hybrid loss).
// Inputs are random canvases holding a 28x28 block, made outside the timed region.

#include <string>

#include "common/result.h"

namespace saccade {

struct RamBenchOptions {
    int canvas = 60, glimpses = 6, glimpseSize = 12, scales = 3, factor = 2, hidden = 256;
    int batch = 128;
    int episodes = 1000;
    int repeats = 9;
    std::string device = "auto";
    /// Also time the episodes of this trained RAM checkpoint on the first test image of its
    /// dataset (a trained policy spreads its glimpses more than the untrained benchmark network).
    std::string model;
};

struct RamBenchResult {
    int threads = 0;
    std::string device;
    double episodesMs = 0;          ///< median ms for `episodes` episodes of one image
    double episodesGflop = 0;       ///< the matrix work of that many independent episodes
    double episodesGflopComputed = 0;  ///< what ran after sharing equal rows (see ram_network.h)
    long long glimpsesComputed = 0;    ///< glimpses through the glimpse layers, of episodes x T
    double trainStepMs = 0;         ///< median ms per training step
    double trainImagesPerSecond = 0;
    double modelEpisodesMs = 0;          ///< with `model`: the same episodes on the trained network
    long long modelGlimpsesComputed = 0;
    double modelGflopComputed = 0;
};

Result<RamBenchResult> benchRam(const RamBenchOptions& options);
std::string ramBenchToJson(const RamBenchOptions& options, const RamBenchResult& result, int indent = 2);

}  // namespace saccade
