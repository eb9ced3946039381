// saccade-cli train NAME: one subcommand per registered model family (models/model_family.h),
// its options built from the family's fields, its progress lines from the family's own.
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "commands.h"
#include "models/model_family.h"
#include "strict_options.h"
#include "train_console.h"

namespace saccade::cli {

namespace {

struct FamilyTrainArgs {
    TrainCommonOptions common;
    std::string dataset;
    std::map<std::string, std::string> values;  // text fields, as typed
    std::map<std::string, bool> flags;
};

std::string joined(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
    return s;
}

void addFieldOptions(CLI::App* cmd, const ModelFamily& family, FamilyTrainArgs& a) {
    for (const auto& f : family.fields) {
        const std::string name = "--" + f.key;
        if (f.kind == FamilyField::Kind::Flag) {
            cmd->add_flag(name, a.flags[f.key], f.help);
            continue;
        }
        a.values[f.key] = f.value;
        auto* option = cmd->add_option(name, a.values[f.key], f.help);
        if (!f.value.empty()) option->capture_default_str();
        if (f.kind == FamilyField::Kind::Integer)
            option->type_name("INT")->check(wholeNumberIn(std::int64_t(f.min), std::int64_t(f.max)));
        if (f.kind == FamilyField::Kind::Real) option->type_name("FLOAT")->check(numberIn(f.min, f.max));
        if (f.kind == FamilyField::Kind::Choice) option->check(CLI::IsMember(f.choices));
    }
}

void addCommonOptions(CLI::App* cmd, const ModelFamily& family, TrainCommonOptions& o) {
    cmd->add_option("--minutes", o.minutes, "time budget; fixes the iteration count after a warm-up")->check(numberIn(1e-3, 1e6));
    cmd->add_option("--iterations", o.iterations, "exact iteration count (reproducible)")->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--batch", o.batch, "batch size (the global batch in data-parallel runs)")
        ->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--lr", o.lr, "learning rate (cosine schedule)")->capture_default_str()->check(numberIn(1e-9, 10));
    cmd->add_option("--eval-every", o.evalEvery, "iterations between evaluations")
        ->capture_default_str()->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--" + family.evalCountKey, o.evalImages, "held-out examples per evaluation")
        ->capture_default_str()->check(wholeNumberIn(1, 1000000));
    cmd->add_option("--seed", o.seed, "seed of initialisation, order and draws")->capture_default_str();
    cmd->add_option("--device", o.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--resume", o.resume, "continue from this checkpoint");
    cmd->add_option("--out", o.out, "checkpoint to write (.pt; sidecar .json and metrics beside it)")->required();
}

/// The request the options describe, checked against the family's fields; an Error names the option.
Result<FamilyTrainRequest> requestOf(const ModelFamily& family, const FamilyTrainArgs& a) {
    FamilySettings given;
    for (const auto& [key, value] : a.values) given[key] = value;
    for (const auto& [key, on] : a.flags) given[key] = on ? "true" : "false";
    auto settings = checkSettings(family, given);
    if (!settings) return Error{settings.error()};
    for (const auto& f : family.fields)
        if (f.excludesResume && !textSetting(*settings, f.key).empty() && !a.common.resume.empty())
            return Error{"--" + f.key + " starts a new run from a model's weights; --resume continues one: give one of them"};
    FamilyTrainRequest r;
    r.common = a.common;
    r.dataset = a.dataset;
    r.settings = *settings;
    return r;
}

void addFamilyTrain(CLI::App& train, const ModelFamily& family, int& exitCode) {
    auto a = std::make_shared<FamilyTrainArgs>();
    a->common = family.defaults;
    a->dataset = family.defaultDataset;
    auto* cmd = train.add_subcommand(family.name, family.description);
    const auto datasets = family.datasets ? family.datasets() : std::vector<std::string>{family.defaultDataset};
    cmd->add_option("--" + family.datasetKey, a->dataset, "training data: " + joined(datasets))->capture_default_str();
    addFieldOptions(cmd, family, *a);
    addCommonOptions(cmd, family, a->common);
    auto flags = std::make_shared<TrainConsoleFlags>();
    addTrainConsoleOptions(cmd, *flags);
    const std::string name = family.name;
    cmd->callback([a, flags, name, &exitCode] {
        const ModelFamily* f = findFamily(name);
        auto request = requestOf(*f, *a);
        if (!request) {
            exitCode = badInput("train " + name, request.error());
            return;
        }
        a->common.command = recreateCommand(*f, *request);
        const FamilySettings settings = request->settings;
        exitCode = runTrainingInConsole(
            "train " + name, *flags, a->common,
            [a, f, request](const ProgressCallback& progress) {
                FamilyTrainRequest r = *request;
                r.common = a->common;  // as the console resolved it (data-parallel settings, a resumed command)
                return f->train(r, progress);
            },
            [f, settings](std::ostream& os, const TrainProgress& p) {
                if (f->progressLine) os << f->progressLine(p, settings);
            },
            [f, settings](std::ostream& os, const TrainProgress& p) {
                if (f->evaluationLine) os << f->evaluationLine(p, settings);
            },
            f->readsText ? "sentences" : "images");
    });
}

}  // namespace

void addTrainCommands(CLI::App& app, int& exitCode) {
    auto* train = app.add_subcommand("train", "Train a model.");
    train->require_subcommand(1);
    for (const ModelFamily* family : modelFamilies())
        if (family->train) addFamilyTrain(*train, *family, exitCode);
}

}  // namespace saccade::cli
