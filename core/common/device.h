#pragma once
// Device choice: made once from a user's spelling and passed down; nothing assumes CPU.

#include <string>

#include <torch/types.h>

#include "common/result.h"

namespace saccade {

/// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". An unknown spelling or a
/// CUDA device that this build or machine lacks is an Error saying so.
Result<torch::Device> resolveDevice(const std::string& spec);

/// Seeds the global generators of every backend; streams of our own use saccade::Rng instead.
void seedEverything(std::uint64_t seed);

}  // namespace saccade
