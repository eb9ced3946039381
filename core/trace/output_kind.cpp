#include "trace/output_kind.h"

#include <iterator>

namespace saccade {

namespace {

constexpr OutputKindTraits kOutputKinds[] = {
    {OutputKind::Class, "class", "classes", false, true, false},
    {OutputKind::Caption, "caption", "captions", true, false, true},
};

constexpr TrainingModeTraits kTrainingModes[] = {
    {TrainingMode::Soft, "soft", "soft", true, false},
    {TrainingMode::Hard, "hard", "sample", true, true},
    {TrainingMode::Gumbel, "gumbel", "gumbel", true, false},
    {TrainingMode::Reinforce, "reinforce", "sample", true, true},
    {TrainingMode::Imported, "imported", "imported", false, false},
};

template <typename Traits, std::size_t N>
std::string nameList(const Traits (&table)[N]) {
    std::string out;
    for (const auto& t : table) out += (out.empty() ? "" : ", ") + std::string(t.name);
    return out;
}

}  // namespace

const OutputKindTraits& traitsOf(OutputKind kind) {
    for (const auto& t : kOutputKinds)
        if (t.kind == kind) return t;
    return kOutputKinds[0];  // unreachable: every enumerator has a row
}

std::string outputKindName(OutputKind kind) { return traitsOf(kind).name; }

Result<OutputKind> parseOutputKind(const std::string& name) {
    for (const auto& t : kOutputKinds)
        if (name == t.name) return t.kind;
    return Error{"'" + name + "' is not an output kind (" + nameList(kOutputKinds) + ")"};
}

const TrainingModeTraits& traitsOf(TrainingMode mode) {
    for (const auto& t : kTrainingModes)
        if (t.mode == mode) return t;
    return kTrainingModes[0];  // unreachable: every enumerator has a row
}

std::string trainingModeName(TrainingMode mode) { return traitsOf(mode).name; }

Result<TrainingMode> parseTrainingMode(const std::string& name) {
    for (const auto& t : kTrainingModes)
        if (name == t.name) return t.mode;
    return Error{"'" + name + "' is not a training mode (" + nameList(kTrainingModes) + ")"};
}

std::vector<std::string> attentionTrainingModeNames() {
    return {traitsOf(TrainingMode::Soft).name, traitsOf(TrainingMode::Hard).name, traitsOf(TrainingMode::Gumbel).name};
}

Result<TrainingMode> parseAttentionTrainingMode(const std::string& name) {
    auto mode = parseTrainingMode(name);
    if (!mode || (*mode != TrainingMode::Soft && *mode != TrainingMode::Hard && *mode != TrainingMode::Gumbel))
        return Error{"unknown training mode '" + name + "' (use soft, hard or gumbel)"};
    return *mode;
}

}  // namespace saccade
