#pragma once
// Reading an imported TorchScript module's methods and attributes as the contract states them
// (docs/model-contract.md), shared by the captioner and the translator: whether a method's
// signature fits, the signature as Python writes it, a List[str] vocabulary, a token attribute.
// Every failure is one line. Engine header.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <torch/script.h>

#include "common/result.h"

namespace saccade {

/// Whether `method` is (self, ARGS...) -> Dict[str, Tensor], ARGS of the kinds given in order.
bool methodFits(const torch::jit::Method& method, const std::vector<c10::TypeKind>& args);

/// "caption(x: Tensor) -> Tensor": the method as Python writes it, without self.
std::string schemaText(const torch::jit::Method& method);

/// At most this many entries in a vocabulary, and this many bytes in each entry.
inline constexpr std::size_t kMaxVocabularyEntries = 1'000'000;
inline constexpr std::size_t kMaxTokenBytes = 200;
/// The largest attention grid an imported model may answer with, cells a side (a 256x256 grid
/// is 65,536 cells a step; a 3000x3000 one wrote a 918 MB trace).
inline constexpr std::int64_t kMaxGridSide = 256;
/// The most steps a grid or glimpse model, and tokens a transformer, may answer with.
inline constexpr std::int64_t kMaxScriptSteps = 1000;
inline constexpr std::int64_t kMaxScriptTokens = 4097;

/// The attribute `name`: a non-empty List[str] ("it has no attribute NAME: List[str] ...") of at
/// most kMaxVocabularyEntries entries, each shown text (checkDisplayText: UTF-8, no control
/// character or direction override, at most kMaxTokenBytes).
Result<std::vector<std::string>> readStringList(const torch::jit::Module& module, const std::string& name);

/// The int attribute `name`, a token id below `vocabulary`; -1 when the module has none.
Result<int> readTokenId(const torch::jit::Module& module, const std::string& name, std::size_t vocabulary);

/// The code of the top module's own class in the TorchScript file at `path` (read, not run; its
/// attributes declared as "  NAME : TYPE", its methods as "def NAME(self"); "" for a file that is
/// not a TorchScript archive.
std::string topClassCode(const std::string& path);

/// Whether that class defines `method` (a submodule's method of that name does not count).
bool topClassDefines(const std::string& path, const std::string& method);

/// "int64", "float32": a tensor's type as messages say it.
std::string dtypeName(const torch::Tensor& t);

}  // namespace saccade
