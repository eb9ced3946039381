#pragma once
// Each command registers its subcommand and options on the app; the callback it installs runs
// the command and stores the process exit code in `exitCode`.

#include <CLI/CLI.hpp>

namespace saccade::cli {

/// Exit codes: 0 success, 1 a run-time failure, 2 bad input (the message names the problem).
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

void addScalarCommand(CLI::App& app, int& exitCode);
void addDoctorCommand(CLI::App& app, int& exitCode);
void addAttendCommand(CLI::App& app, int& exitCode);
void addReinforceCommand(CLI::App& app, int& exitCode);
/// estimators: REINFORCE variants and straight-through Gumbel against the exact gradient, and training.
void addEstimatorsCommand(CLI::App& app, int& exitCode);
void addDemoCommand(CLI::App& app, int& exitCode);
void addDataCommand(CLI::App& app, int& exitCode);
void addBenchCommand(CLI::App& app, int& exitCode);
/// `bench` and every bench subcommand but `bench seq`, from one table (cmd_data.cpp).
void addBenchCommands(CLI::App& app, int& exitCode);
/// bench train: training images/s with 1, 2, ... data-parallel processes.
void addBenchTrain(CLI::App& bench, int& exitCode);
/// train NAME for every registered model family (models/model_family.h).
void addTrainCommands(CLI::App& app, int& exitCode);
void addModelCommands(CLI::App& app, int& exitCode);  // eval, trace, render, strip
/// bench attention: every attention variant's time, memory and error as the input grows.
void addBenchAttention(CLI::App& bench, int& exitCode);
/// length fidelity and length view: what the efficient variants give up, and one variant's figure.
void addLengthCommand(CLI::App& app, int& exitCode);
/// atlas: the queries and keys of one head over many inputs in one 2-D map (cmd_atlas.cpp).
void addAtlasCommand(CLI::App& app, int& exitCode);
/// bench ram.
void addRamCommands(CLI::App& bench, int& exitCode);
/// bench caption.
void addCaptionCommands(CLI::App& bench, int& exitCode);
/// bench vit.
void addVitCommands(CLI::App& bench, int& exitCode);
/// bench import: opening and using a model of one's own, beside PyTorch.
void addBenchImport(CLI::App& bench, int& exitCode);

/// train seq, bench seq and translate: sequence models with attention over the source.
void addSeqCommands(CLI::App& app, CLI::App& bench, int& exitCode);
/// eval of a model that reads text (eval dispatches here for one): its task's test split, or the
/// pairs in `pairsFile` when not empty; returns the exit code.
int runSeqEval(const std::string& path, const std::string& device, const std::string& rule, std::int64_t limit,
               std::uint64_t seed, bool json, const std::string& pairsFile);

/// render of a sequence model: the alignment matrix (.png, .svg, .csv) or its playback (.gif).
/// `caption` "-" means none, empty the default. Returns the exit code.
int runSeqRender(const std::string& path, const std::string& device, const std::string& text, const std::string& rule,
                 std::uint64_t seed, const std::string& out, int scale, int delay, const std::string& caption,
                 const std::string& map, bool headView);

/// similarity: a text encoder's similarity of two sentences, attributed to their pieces.
void addSimilarityCommand(CLI::App& app, int& exitCode);

/// compare: N runs against the deterministic rule on one image, or every rule on a dataset.
void addCompareCommand(CLI::App& app, int& exitCode);

/// adequacy: per-image signals of inadequate observations and their risk-coverage curves.
void addAdequacyCommand(CLI::App& app, int& exitCode);

/// sweep: a probe object moved across the model's cells (failure maps), and size and clutter sweeps.
void addSweepCommand(CLI::App& app, int& exitCode);

/// faithfulness: mass in the box, pointing, deletion curves, saliency correlation, calibration.
void addFaithfulnessCommand(CLI::App& app, int& exitCode);

/// attribute: an attribution map of one image beside attention (analysis/attribution.h).
void addAttributeCommand(CLI::App& app, int& exitCode);
/// bench attribute: integrated gradients against plain PyTorch autograd.
void addBenchAttribute(CLI::App& bench, int& exitCode);
/// `bench all`: every family against its reference in one run (cmd_bench_all.cpp).
void addBenchAll(CLI::App& bench, int& exitCode);
/// adversarial: how far soft attention can move without changing the answer (analysis/adversarial_attention.h).
void addAdversarialCommand(CLI::App& app, int& exitCode);

/// cost: time and FLOPs per stage and rule.
void addCostCommand(CLI::App& app, int& exitCode);

/// report: one self-contained HTML file of everything measured about a model.
void addReportCommand(CLI::App& app, int& exitCode);

/// Prints "saccade-cli <command>: <message>" on stderr and returns kExitBadInput.
int badInput(const std::string& command, const std::string& message);
/// Prints "saccade-cli COMMAND: MESSAGE" for a failure after the work began (a file that could
/// not be written), through the same door as badInput; the caller returns its own exit code.
void sayFailure(const std::string& command, const std::string& message);

}  // namespace saccade::cli
