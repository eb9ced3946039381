#include "train/peer_probe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <vector>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "common/torch_compat.h"

namespace saccade {

namespace {

constexpr int kStoreError = 3;  ///< the child's exit code when the store raised (its message follows)
constexpr int kWrongEcho = 4;   ///< the store gave back something other than what was set

/// The child: one store question, then _exit (no destructors, no atexit handlers of the parent's).
[[noreturn]] void askStore(const DistributedSettings& s, int reply) {
    int code = 0;
    try {
        c10d::TCPStoreOptions options;
        options.port = static_cast<std::uint16_t>(s.masterPort);
        options.isServer = false;
        options.numWorkers = static_cast<std::size_t>(s.worldSize);
        options.waitWorkers = false;  // only the real join counts as a worker
        options.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(s.timeoutSeconds * 1000));
        compat::useClassicTcpStore(options);
        auto store = c10::make_intrusive<c10d::TCPStore>(s.masterAddr, options);
        // A store echoes what it was given: a peer that answers by chance (one byte that reads as
        // "ready") cannot.
        const std::string key = "saccade/probe/" + std::to_string(::getpid());
        const std::vector<std::uint8_t> token{'s', 'a', 'c', 'c', 'a', 'd', 'e'};
        store->set(key, token);
        if (store->get(key) != token) code = kWrongEcho;
        (void)store->deleteKey(key);
    } catch (const std::exception& e) {
        const std::string line = firstLine(e.what());
        (void)!::write(reply, line.data(), line.size());
        code = kStoreError;
    }
    ::_exit(code);
}

/// Reads what the child wrote (its error line), up to 4 KiB.
std::string drain(int fd) {
    std::string text;
    char buf[512];
    for (ssize_t n; text.size() < 4096 && (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
    return text;
}

}  // namespace

Result<Unit> probeGroupPeer(const DistributedSettings& settings) {
    const std::string where = settings.masterAddr + ":" + std::to_string(settings.masterPort);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("cannot start the group probe: ") + std::strerror(errno)};
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return Error{std::string("cannot start the group probe: ") + std::strerror(errno)};
    }
    if (child == 0) {
        ::close(fds[0]);
        // The C++ runtime's "terminate called after ..." is the child's to keep: the parent says it in one line.
        if (const int null = ::open("/dev/null", O_WRONLY); null >= 0) ::dup2(null, STDERR_FILENO);
        askStore(settings, fds[1]);
    }
    ::close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<std::int64_t>(settings.timeoutSeconds * 1000) + 1000);
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
        pollfd p{fds[0], POLLIN, 0};
        (void)::poll(&p, 1, 50);
    }
    if (done == 0) {  // silence past the timeout
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
        ::close(fds[0]);
        return Error{"the peer at " + where + " accepted the connection but did not answer within " +
                     std::to_string(static_cast<long long>(settings.timeoutSeconds)) +
                     " s: it is not a Saccade rank 0 (check --master-addr and --master-port)"};
    }
    const std::string message = drain(fds[0]);
    ::close(fds[0]);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Unit{};
    const std::string check = " (check --master-addr and --master-port)";
    if (WIFEXITED(status) && WEXITSTATUS(status) == kStoreError) {
        const bool timedOut = saysTimedOut(message);
        if (timedOut && message.find("connect") != std::string::npos)
            return Error{message};  // nobody there yet: the caller says that no rank 0 joined in time
        if (timedOut)
            return Error{"the peer at " + where + " accepted the connection but did not answer within " +
                         std::to_string(static_cast<long long>(settings.timeoutSeconds)) +
                         " s: it is not a Saccade rank 0" + check};
        // The store's own words ("cannot create std::vector larger than max_size()" for a huge
        // length prefix) say how the bytes failed, not what the user should know: left out.
        return Error{"the peer at " + where + " is not a Saccade rank 0: its answer made no sense to a training "
                     "group's store (bytes no rank 0 sends)" + check};
    }
    return Error{"the peer at " + where + " is not a Saccade rank 0: it answered with data a training group cannot read" +
                 check};
}

bool saysTimedOut(const std::string& message) {
    std::string lower = message;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return lower.find("timeout") != std::string::npos || lower.find("timed out") != std::string::npos;
}

}  // namespace saccade
