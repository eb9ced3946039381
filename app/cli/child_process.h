#pragma once
// Child processes started from an argument vector (fork + execv): no shell ever sees an argument,
// so a path such as 'x.py; touch INJECTED' is only a file name. Used for the reference scripts
// and for the ranks that `bench train` starts.

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace saccade::cli {

struct ChildProcess {
    pid_t pid = -1;
    int stdoutFd = -1;  ///< the child's stdout (a pipe), or -1 when not captured
};

/// Where a child's stdout or stderr goes: read by finishChild (stdout only), /dev/null, or ours.
enum class ChildOutput { Capture, Discard, Inherit };

/// Starts argv[0] (a path) with `argv`; `environment` entries (name, value) are set in the child
/// only.
Result<ChildProcess> startChild(const std::vector<std::string>& argv,
                                const std::vector<std::pair<std::string, std::string>>& environment,
                                ChildOutput out, ChildOutput err = ChildOutput::Discard);

/// Reads the child's captured stdout to its end, waits for it, and returns its exit status
/// (-1 when it was killed by a signal) and output.
std::pair<int, std::string> finishChild(ChildProcess& child);

/// Sends SIGKILL to a child still running and reaps it.
void killChild(ChildProcess& child);

}  // namespace saccade::cli
