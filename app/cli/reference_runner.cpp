#include "reference_runner.h"

#include <unistd.h>

#include <iostream>

#include "child_process.h"
#include "common/display_text.h"

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
    std::vector<std::pair<std::string, std::string>> environment;
    if (threads > 0)
        environment = {{"OPENBLAS_NUM_THREADS", std::to_string(threads)}, {"OMP_NUM_THREADS", std::to_string(threads)}};
    auto child = startChild(argv, environment, ChildOutput::Capture);
    if (!child) return {};
    auto [status, output] = finishChild(child.value());
    const auto j = nlohmann::json::parse(output, nullptr, false);
    // Say which of the three went wrong: the script failed (a missing torch among the causes), or
    // it ran and printed something that is not the JSON object a reference prints.
    if (status != 0) {
        const bool noTorch = output.find("No module named 'torch") != std::string::npos;
        std::cerr << "saccade-cli " << command << ": the reference " << script << " exited with status " << status
                  << (noTorch ? ": Debian's python3-torch is not installed (apt install python3-torch)" : "") << "\n";
    } else if (j.is_discarded() || !j.is_object()) {
        std::cerr << "saccade-cli " << command << ": the reference " << script
                  << " ran but did not print one JSON object (it printed "
                  << (output.empty() ? std::string("nothing") : std::to_string(output.size()) + " bytes starting '" +
                                                                    escapeDisplayText(output.substr(0, 40), 60) + "'")
                  << ")\n";
    }
    if (status != 0 || j.is_discarded() || !j.is_object()) return {};
    return j;
}

}  // namespace saccade::cli
