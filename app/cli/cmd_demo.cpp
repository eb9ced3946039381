// saccade-cli demo: the headless tour, for machines without a display.
#include <iostream>

#include "analysis/labs/scalar_lab.h"
#include "attention/engine_demo.h"
#include "attention/reinforce.h"
#include "commands.h"
#include "doctor/doctor.h"

namespace saccade::cli {

void addDemoCommand(CLI::App& app, int& exitCode) {
    auto* cmd = app.add_subcommand(
        "demo", "A headless tour: the scalar worked example, every selection rule on one "
                "synthetic grid, the REINFORCE check, and the doctor's summary.");
    cmd->callback([&exitCode] {
        std::cout << "== 1. Hard against soft attention: the scalar worked example ==\n"
                     "values 2, 6, 10 with probabilities 0.5, 0.3, 0.2, f(x) = x^2, u = 0.65\n";
        ScalarLabInput in;
        in.values = {2, 6, 10};
        in.probs = {0.5, 0.3, 0.2};
        in.u = 0.65;
        in.samples = 100000;
        const auto lab = runScalarLab(in);
        if (!lab) { exitCode = kExitFailure; std::cerr << lab.error() << "\n"; return; }
        std::cout << "  soft context " << lab->softContext << "; the draw u = 0.65 selects "
                  << lab->draw.value << "; E[hard context] " << lab->expectedHardContext << "\n"
                  << "  f(soft) = " << lab->fSoft << " but E[f(hard)] = " << lab->expectedFHard
                  << " (Monte-Carlo " << lab->mc->meanFHard << " +- " << lab->mc->stderrFHard
                  << "); argmax picks " << lab->argmaxValue << ", f = " << lab->fArgmax << "\n\n";

        std::cout << "== 2. One attention problem, six selection rules (seed 3) ==\n";
        for (const char* rule : {"soft", "sample", "argmax", "topk:3", "ksample:10", "gumbel:0.5"}) {
            EngineDemoOptions o;
            o.rule = rule;
            o.seed = 3;
            o.steps = 3;
            const auto trace = runEngineDemo(o);
            if (!trace) { exitCode = kExitFailure; std::cerr << trace.error() << "\n"; return; }
            std::cout << "  " << rule << ":";
            for (const auto& s : trace->steps) {
                std::cout << "  [";
                for (size_t k = 0; k < s.chosenCells.size() && k < 10; ++k)
                    std::cout << (k ? "," : "") << s.chosenCells[k];
                std::cout << (s.chosenCells.empty() ? "all cells, weighted" : "") << "]";
            }
            std::cout << "\n";
        }
        std::cout << "  (cells chosen at each of 3 steps; 'saccade-cli attend --rule R' shows "
                     "the full trace)\n\n";

        std::cout << "== 3. REINFORCE: score-function gradient against the exact one ==\n";
        ScoreFunctionCheckInput rin;
        rin.probs = {0.5, 0.3, 0.2};
        rin.rewards = {1, 2, 5};
        rin.samples = 20000;
        const auto check = checkScoreFunctionGradient(rin);
        if (!check) { exitCode = kExitFailure; std::cerr << check.error() << "\n"; return; }
        std::cout << "  largest |estimate - exact| / stderr = " << check->maxAbsZ
                  << "; a moving-average baseline cuts the variance " << check->varianceRatio
                  << "x\n\n";

        std::cout << "== 4. This machine ==\n" << doctorToText(runDoctor()) << "\n";
        std::cout << "The GUI shows all of this interactively: run 'saccade' on a machine with a "
                     "display.\n";
    });
}

}  // namespace saccade::cli
