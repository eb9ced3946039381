#pragma once
// Loading shared by every model family: the sidecar read and checked against the family's model
// type, the device resolved, weights loaded onto it (names, shapes and integrity checked) and the
// network put in eval mode, the class names of the sidecar's dataset. A family adds only the
// parsing of its config and the construction of its network.
// Engine header: includes LibTorch.

#include <new>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

#include "common/result.h"
#include "io/checkpoint.h"

namespace saccade {

struct CheckpointHeader {
    CheckpointInfo info;
    torch::Device device{torch::kCPU};
    std::vector<std::string> classNames;  ///< of the sidecar's dataset; empty for caption sets
};

/// Reads the sidecar of `path`, checks that it holds a `modelType` model (else an Error saying
/// what it holds, in terms of `familyName`, e.g. "a patch classifier") and resolves `device`.
Result<CheckpointHeader> openCheckpoint(const std::string& path, const std::string& device,
                                        const std::string& modelType, const std::string& familyName);

/// Moves `net` to the header's device, loads the weights of `path` into it and sets eval mode.
Result<Unit> loadNetWeights(torch::nn::Module& net, const std::string& path, const CheckpointHeader& header);

/// Whether `path` should be opened as a TorchScript import rather than as a Saccade checkpoint:
/// true when no `NAME.json` lies beside it, or that file is a JSON object whose "format" does not
/// name Saccade (the user's own notes). A damaged sidecar still makes it a checkpoint.
bool isScriptImport(const std::string& path);

/// Copies checkpoint `path` to `out` without its optimizer state (about a third of the size): the
/// weights and the sidecar, unchanged, for bundling. Any family; errors name the file.
Result<Unit> stripOptimizerState(const std::string& path, const std::string& out);

/// "checkpoint 'PATH': MESSAGE" for a config that does not parse.
Error configError(const std::string& path, const std::string& message);

/// Builds a family's network from a checked config; sizes that no memory can hold (a sidecar may
/// ask for anything its ranges allow) become an Error naming the checkpoint, not an exception.
template <typename Make>
auto buildNet(const std::string& path, Make make) -> Result<decltype(make())> {
    try {
        return make();
    } catch (const c10::Error& e) {
        return configError(path, "cannot build the network its sidecar describes: " + firstLine(e.what_without_backtrace()));
    } catch (const std::bad_alloc&) {
        return configError(path, "the network its sidecar describes does not fit in memory");
    }
}

}  // namespace saccade
