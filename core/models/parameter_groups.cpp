#include "models/parameter_groups.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace saccade {

std::string parameterLayer(const std::string& path) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const std::size_t dot = path.find('.', start);
        parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    if (parts.size() == 1) return path;  // a parameter of the network itself
    parts.pop_back();                    // the tensor's own name
    const auto numbered = std::find_if(parts.begin(), parts.end(), [](const std::string& part) {
        return !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
    });
    if (numbered == parts.end()) return parts.front();
    std::string layer;
    for (auto it = parts.begin(); it != std::next(numbered); ++it) layer += (layer.empty() ? "" : ".") + *it;
    return layer;
}

std::vector<ParameterGroup> layerGroupsFromTop(const std::vector<std::pair<std::string, torch::Tensor>>& named) {
    std::vector<ParameterGroup> groups;  // in registration order first
    for (const auto& [path, tensor] : named) {
        const std::string layer = parameterLayer(path);
        auto it = std::find_if(groups.begin(), groups.end(), [&](const ParameterGroup& g) { return g.name == layer; });
        if (it == groups.end()) it = groups.insert(groups.end(), ParameterGroup{layer, {}});
        it->tensors.push_back(tensor);
    }
    std::reverse(groups.begin(), groups.end());
    return groups;
}

std::vector<ParameterGroup> layerGroupsFromTop(const torch::nn::Module& module) {
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto& item : module.named_parameters(/*recurse=*/true)) named.emplace_back(item.key(), item.value());
    return layerGroupsFromTop(named);
}

}  // namespace saccade
