#include "output_check.h"

#include <filesystem>
#include <map>
#include <system_error>

#include "io/output_guard.h"

namespace saccade::cli {

namespace {

/// The command that will run: the deepest subcommand given, and whether it writes a checkpoint.
CLI::App* leafCommand(CLI::App& app, bool& writesCheckpoint) {
    CLI::App* sub = &app;
    writesCheckpoint = false;
    while (true) {
        auto parsed = sub->get_subcommands();
        if (parsed.empty()) return sub;
        const bool underTrain = sub->get_name() == "train";
        sub = parsed.front();
        writesCheckpoint = underTrain || (sub->get_name() == "strip" && sub->get_parent() == &app);
    }
}

std::map<const CLI::App*, DerivedOutputs>& derivedOutputs() {
    static std::map<const CLI::App*, DerivedOutputs> declared;
    return declared;
}

bool namesSomething(const std::string& value) {
    std::error_code ec;
    return !value.empty() && std::filesystem::exists(value, ec);
}

/// `train --resume X.pt --out X.pt` continues X in place (its metrics log goes on).
bool resumesInPlace(const CLI::App& leaf, const std::string& resume) {
    for (const CLI::Option* opt : leaf.get_options())
        if (opt->get_name() == "--out")
            for (const std::string& out : opt->results())
                if (samePlace(out, resume)) return true;
    return false;
}

}  // namespace

void declareDerivedOutputs(const CLI::App* command, DerivedOutputs outputs) {
    derivedOutputs()[command] = std::move(outputs);
}

void checkOutputsBeforeWork(CLI::App& app) {
    bool writesCheckpoint = false;
    CLI::App* leaf = leafCommand(app, writesCheckpoint);
    std::vector<NamedPath> outputs, inputs;
    for (const CLI::Option* opt : leaf->get_options()) {
        const std::string name = opt->get_name();
        for (const std::string& value : opt->results()) {
            if (name == "--out") {
                if (!writesCheckpoint) {
                    outputs.push_back({value, "--out"});
                    continue;
                }
                // A folder is said as such, before its name is judged as a checkpoint's.
                if (auto target = resolveSaveTarget(value); !target) throw CLI::ValidationError(target.error());
                auto set = checkpointOutputs(value, "--out");
                if (!set) throw CLI::ValidationError(set.error());
                outputs.insert(outputs.end(), set->begin(), set->end());
            } else if (name == "--resume" && resumesInPlace(*leaf, value)) {
                continue;  // continuing a checkpoint under its own name replaces it by design
            } else if (namesSomething(value)) {
                auto read = inputWithCompanions(value, name.empty() ? "an input" : name);
                inputs.insert(inputs.end(), read.begin(), read.end());
            }
        }
    }
    if (const auto derived = derivedOutputs().find(leaf); derived != derivedOutputs().end())
        for (auto& [path, what] : derived->second()) outputs.push_back({path, what});
    if (auto apart = checkOutputsApart(outputs, inputs); !apart) throw CLI::ValidationError(apart.error());
    // A folder, a FIFO, a device or a missing or unwritable folder is refused now, not after the work.
    for (const auto& out : outputs)
        if (auto target = resolveSaveTarget(out.path); !target) throw CLI::ValidationError(target.error());
}

}  // namespace saccade::cli
