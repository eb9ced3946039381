#pragma once
// The c10d backends data-parallel training could use here, checked for real (doctor asks this;
// the training group, train/training_group.h, runs on what it finds), and c10d's error text
// without its source prefix.
// Plain types.

#include <string>
#include <vector>

namespace saccade {

/// Whether this LibTorch was built with CUDA (its CUDA library is loaded), GPU or not: at::hasCUDA()
/// asks whether a GPU answers.
bool libTorchHasCuda();

/// A c10d backend data-parallel training could use here, checked for real where it is built in.
struct TrainingBackend {
    std::string name;  ///< "gloo", "nccl"
    bool available = false;
    std::string detail;
};
/// Gloo: an all-reduce on a one-rank group; NCCL: whether this LibTorch could offer it.
std::vector<TrainingBackend> checkTrainingBackends();

/// The first line of `text` without the "[./gloo/transport/tcp/pair.cc:589] " prefix Gloo puts
/// on its messages: the user needs the rest.
std::string withoutSourcePrefix(const std::string& text);

}  // namespace saccade
