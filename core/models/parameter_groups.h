#pragma once
// A network's parameters grouped by layer, from the output layer down, for the model-randomisation
// sanity check (GradientForward::parameterGroups, analysis/sanity_check.h). A layer is the path of
// a parameter up to its first numbered part ("layers.3.fc1.weight" is in "layers.3",
// "encoder.0.weight" in "encoder.0"), else its first part ("classifier.weight" is in
// "classifier"; a parameter of the network itself, "position", is its own layer). Layers are
// ordered as the network registers their first parameter, reversed: a network that registers its
// modules from input to output (every Saccade network does) gives the output layer first.
// Engine header: includes LibTorch.

#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "models/gradient_forward.h"

namespace saccade {

/// The layer a parameter path belongs to (see above).
std::string parameterLayer(const std::string& path);

/// Named parameters (in registration order) grouped by layer, the last registered layer first.
std::vector<ParameterGroup> layerGroupsFromTop(const std::vector<std::pair<std::string, torch::Tensor>>& named);

/// A module's parameters grouped by layer, the last registered layer first.
std::vector<ParameterGroup> layerGroupsFromTop(const torch::nn::Module& module);

}  // namespace saccade
