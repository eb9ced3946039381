#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

extern char** environ;

namespace saccade::cli {

Result<ChildProcess> startChild(const std::vector<std::string>& argv,
                                const std::vector<std::pair<std::string, std::string>>& environment,
                                ChildOutput out, ChildOutput err) {
    const bool captureStdout = out == ChildOutput::Capture;
    if (argv.empty()) return Error{"no program to start"};
    std::vector<std::string> args = argv;
    std::vector<char*> cargv;
    for (auto& a : args) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    // The child's environment is built here: between fork and exec a child of a threaded process
    // may only make async-signal-safe calls, which setenv is not.
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry(*e);
        const auto name = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& [n, v] : environment) replaced = replaced || n == name;
        if (!replaced) env.push_back(entry);
    }
    for (const auto& [name, value] : environment) env.push_back(name + "=" + value);
    std::vector<char*> cenv;
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    int fds[2] = {-1, -1};
    // Close-on-exec: no other child inherits this pipe (dup2 in the child clears the flag).
    if (captureStdout && ::pipe2(fds, O_CLOEXEC) != 0) return Error{"cannot create a pipe for " + argv[0]};
    const pid_t pid = ::fork();
    if (pid < 0) {
        if (captureStdout) {
            ::close(fds[0]);
            ::close(fds[1]);
        }
        return Error{"cannot start " + argv[0]};
    }
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (captureStdout) {
            ::dup2(fds[1], STDOUT_FILENO);
            ::close(fds[0]);
            ::close(fds[1]);
        } else if (out == ChildOutput::Discard && null >= 0) {
            ::dup2(null, STDOUT_FILENO);
        }
        if (err != ChildOutput::Inherit && null >= 0) ::dup2(null, STDERR_FILENO);
        ::execve(cargv[0], cargv.data(), cenv.data());
        ::_exit(127);
    }
    ChildProcess child;
    child.pid = pid;
    if (captureStdout) {
        ::close(fds[1]);
        child.stdoutFd = fds[0];
    }
    return child;
}

std::pair<int, std::string> finishChild(ChildProcess& child) {
    std::string output;
    if (child.stdoutFd >= 0) {
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::read(child.stdoutFd, buffer, sizeof buffer);
            if (n > 0) output.append(buffer, std::size_t(n));
            else if (n < 0 && errno == EINTR) continue;
            else break;
        }
        ::close(child.stdoutFd);
        child.stdoutFd = -1;
    }
    int status = 0;
    pid_t waited = -1;
    if (child.pid > 0)
        do waited = ::waitpid(child.pid, &status, 0);
        while (waited < 0 && errno == EINTR);
    const bool reaped = child.pid > 0 && waited == child.pid;
    child.pid = -1;
    return {reaped && WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

void killChild(ChildProcess& child) {
    if (child.pid > 0) ::kill(child.pid, SIGKILL);
    finishChild(child);
}

}  // namespace saccade::cli
