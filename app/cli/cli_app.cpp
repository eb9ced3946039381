// saccade-cli's commands, parsed and run: runSaccadeCli (app/cli/cli_app.h).
#include <iostream>
#include <new>

#include <c10/util/Exception.h>

#include "cli_app.h"
#include "commands.h"
#include "output_check.h"
#include "resume_check.h"
#include "shard_option.h"
#include "common/display_text.h"
#include "common/result.h"
#include "common/runtime.h"
#include "strict_options.h"

namespace saccade::cli {
int badInput(const std::string& command, const std::string& message) {
    // The one door of every refusal: one line, whatever text a file or a model put in it (control
    // characters escaped, at most 2,000 bytes).
    std::cerr << "saccade-cli " << command << ": " << escapeDisplayText(message, 2000) << "\n";
    return kExitBadInput;
}

void sayFailure(const std::string& command, const std::string& message) {
    std::cerr << "saccade-cli " << command << ": " << escapeDisplayText(message, 2000) << "\n";
}

namespace {

// Every command, on `app` (train NAME for every registered family).
void addCommands(CLI::App& app, int& exitCode) {
    addScalarCommand(app, exitCode);
    addAttendCommand(app, exitCode);
    addReinforceCommand(app, exitCode);
    addEstimatorsCommand(app, exitCode);
    addDoctorCommand(app, exitCode);
    addTrainCommands(app, exitCode);
    addModelCommands(app, exitCode);
    addDataCommand(app, exitCode);
    addBenchCommands(app, exitCode);
    addSeqCommands(app, *app.get_subcommand("bench"), exitCode);
    addSimilarityCommand(app, exitCode);
    addDemoCommand(app, exitCode);
    addCompareCommand(app, exitCode);
    addAdequacyCommand(app, exitCode);
    addSweepCommand(app, exitCode);
    addFaithfulnessCommand(app, exitCode);
    addAttributeCommand(app, exitCode);
    addAdversarialCommand(app, exitCode);
    addCostCommand(app, exitCode);
    addReportCommand(app, exitCode);
    addMergeCommand(app, exitCode);
    addLengthCommand(app, exitCode);
    addAtlasCommand(app, exitCode);
}

}  // namespace

int runSaccadeCli(int argc, char** argv) {
    CLI::App app{
        "Saccade: a lab for hard and soft visual attention (headless front end).\n"
        "Every stochastic command takes --seed; the same seed gives the same result on the "
        "same device."};
    app.require_subcommand(1);
    // A flag takes no value: "--json=12abc" is refused, not read as true (subcommands inherit this).
    app.option_defaults()->disable_flag_override();
    int threads = 0;
    app.add_option("--threads", threads, "LibTorch intra-op threads (default: all cores)")
        ->check(CLI::Range(1, 256));
    app.footer(
        "Examples:\n"
        "  saccade-cli scalar --values 2,6,10 --probs 0.5,0.3,0.2 --f square --u 0.65\n"
        "  saccade-cli scalar --values 2,6,10 --probs 0.5,0.3,0.2 --samples 100000 --seed 1 --json\n"
        "  saccade-cli attend --scorer additive --rule sample --seed 3 --json\n"
        "  saccade-cli reinforce --probs 0.5,0.3,0.2 --rewards 1,2,5 --samples 20000\n"
        "  saccade-cli estimators --probs 0.5,0.3,0.2 --rewards 1,2,5 --samples 20000 --seed 1\n"
        "  saccade-cli data list\n"
        "  saccade-cli data preview --dataset cluttered-fashion60 --count 16 --seed 1 --out grid.png\n"
        "  saccade-cli data probe --cell 12 --size 6 --dx -6:6 --out probes.png\n"
        "  saccade-cli bench data --dataset cluttered-fashion100\n"
        "  saccade-cli adequacy --model samples/models/patch-hard-fashion60.pt --limit 200 --runs 50\n"
        "  saccade-cli similarity --model samples/torchscript/text_encoder.pt --text \"The cat sat.\" --text \"A dog ran.\"\n"
        "  saccade-cli doctor\n"
        "  saccade-cli demo\n"
        "Run 'saccade-cli COMMAND --help' for a command's options.");

    int exitCode = 0;
    addCommands(app, exitCode);
    makeNumbersStrict(app);
    app.parse_complete_callback([&] {
        std::string command = "saccade-cli";
        for (CLI::App* sub = &app; !sub->get_subcommands().empty();) {
            sub = sub->get_subcommands().front();
            command += " " + sub->get_name();
        }
        saccade::reportInterruptions(command);  // Ctrl+C says what it stopped
        checkOutputsBeforeWork(app);
        checkResumeAgreesWithCheckpoint(app);
        saccade::setComputeThreads(threads);
    });

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return reportParseError(app, e, argc, argv);
    } catch (const c10::Error& e) {
        // A LibTorch failure nothing below caught: its first line, never the backtrace.
        std::cerr << "saccade-cli: " << saccade::firstLine(e.what_without_backtrace()) << "\n";
        return kExitFailure;
    } catch (const std::bad_alloc&) {
        std::cerr << "saccade-cli: out of memory (the request is too large for this machine)\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "saccade-cli: " << saccade::firstLine(e.what()) << "\n";
        return kExitFailure;
    }
    return exitCode;
}

}  // namespace saccade::cli
