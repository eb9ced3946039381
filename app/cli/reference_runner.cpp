#include "reference_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>

namespace saccade::cli {

nlohmann::json runReferenceScript(const std::string& command, const std::string& script,
                                  const std::vector<std::string>& args, int threads) {
    // Debian's interpreter, where python3-torch lives (a python3 earlier on PATH may lack it).
    const std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "";
    if (python.empty()) {
        std::cerr << "saccade-cli " << command << ": /usr/bin/python3 is missing (install python3-torch)\n";
        return {};
    }
    if (::access(script.c_str(), R_OK) != 0) {
        std::cerr << "saccade-cli " << command << ": cannot read the reference script '" << script << "'\n";
        return {};
    }
    std::vector<std::string> argv = {python, script};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {};
    }
    if (pid == 0) {
        ::dup2(fds[1], STDOUT_FILENO);
        const int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) ::dup2(null, STDERR_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        if (threads > 0) {
            const std::string n = std::to_string(threads);
            ::setenv("OPENBLAS_NUM_THREADS", n.c_str(), 1);
            ::setenv("OMP_NUM_THREADS", n.c_str(), 1);
        }
        ::execv(cargv[0], cargv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    std::string output;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, std::size_t(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const auto j = nlohmann::json::parse(output, nullptr, false);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || j.is_discarded() || !j.is_object()) {
        std::cerr << "saccade-cli " << command << ": the reference " << script
                  << " failed; is python3-torch installed?\n";
        return {};
    }
    return j;
}

}  // namespace saccade::cli
