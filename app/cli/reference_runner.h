#pragma once
// Runs a reference benchmark script (../shared/bench/*.py) with Debian's python3 and returns the
// JSON line it prints. The script and its arguments go to execv as an argument vector: no shell
// ever sees them, so a path such as 'x.py; touch INJECTED' is only a (missing) file name.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace saccade::cli {

/// The script's JSON output; empty (with a one-line note on stderr naming `command`) when it
/// cannot be run, fails, or prints no JSON. With `threads` > 0 the child's BLAS and OpenMP pools
/// get that many threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS), as ours do: PyTorch's
/// set_num_threads leaves OpenBLAS's own pool at one thread per core.
nlohmann::json runReferenceScript(const std::string& command, const std::string& script,
                                  const std::vector<std::string>& args, int threads = 0);

}  // namespace saccade::cli
