// saccade-cli attend / reinforce: the attention engine and the score-function estimator.
#include <iomanip>
#include <iostream>
#include <memory>

#include "attention/engine_demo.h"
#include "attention/reinforce.h"
#include "commands.h"
#include "strict_options.h"
#include "common/parse.h"

namespace saccade::cli {

namespace {

void printTraceText(const Trace& t) {
    std::cout << "model " << t.modelId << ", image " << t.imageId << ", rule " << t.rule
              << ", seed " << t.seed << ", device " << t.device << "\n";
    std::cout << "step  target  chosen        p(chosen)  log-prob  entropy  top cells (p)\n";
    for (size_t i = 0; i < t.steps.size(); ++i) {
        const auto& s = t.steps[i];
        const auto& g = *s.grid;
        const auto& box = t.groundTruth->boxes[i];
        const int target = static_cast<int>(box.y / box.h) * g.cols + static_cast<int>(box.x / box.w);
        std::string chosen;
        double mass = 0;
        for (int c : s.chosenCells) {
            chosen += (chosen.empty() ? "" : ",") + std::to_string(c);
            mass += g.probs[c];
        }
        std::vector<int> order(g.probs.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
        std::partial_sort(order.begin(), order.begin() + std::min<size_t>(3, order.size()),
                          order.end(), [&](int a, int b) { return g.probs[a] > g.probs[b]; });
        std::cout << std::setw(4) << i + 1 << "  " << std::setw(6) << target << "  " << std::left
                  << std::setw(12) << (chosen.empty() ? "(soft)" : chosen) << std::right
                  << std::fixed << std::setprecision(4) << std::setw(10)
                  << (chosen.empty() ? 1.0 : mass) << std::setw(10) << s.logProb << std::setw(9)
                  << s.entropy << "  ";
        for (size_t k = 0; k < std::min<size_t>(3, order.size()); ++k)
            std::cout << order[k] << " (" << g.probs[order[k]] << ") ";
        std::cout << "\n";
    }
    std::cout << "(engine demo: an untrained scorer with seeded weights; the query of each step "
                 "is planted near its target cell)\n";
}

}  // namespace

void addAttendCommand(CLI::App& app, int& exitCode) {
    struct Args {
        EngineDemoOptions options;
        bool json = false, csv = false;
        std::string out;
    };
    auto args = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "attend",
        "Run the attention engine (one scorer, one selection rule) on a seeded synthetic grid "
        "and print or save its trace.");
    auto& o = args->options;
    cmd->add_option("--scorer", o.scorer, "additive, dot, general or scaled-dot")
        ->capture_default_str();
    cmd->add_option("--rule", o.rule, "soft, sample, argmax, topk:K, ksample:K or gumbel:TAU")
        ->capture_default_str();
    cmd->add_option("--seed", o.seed, "seed of the problem and of every draw")->capture_default_str();
    cmd->add_option("--grid", o.grid, "cells per side")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--steps", o.steps, "attention steps")->capture_default_str()->check(wholeNumberIn(1, 64));
    cmd->add_option("--dim", o.featureDim, "feature dimension")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--noise", o.queryNoise, "std of the query's noise")->capture_default_str();
    cmd->add_option("--device", o.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", args->json, "print the trace as JSON (schema saccade.trace)");
    cmd->add_flag("--csv", args->csv, "print the trace as CSV, one row per step");
    cmd->add_option("--out", args->out, "also save the trace as JSON to this file (atomic)");
    cmd->callback([args, &exitCode] {
        auto trace = runEngineDemo(args->options);
        if (!trace) { exitCode = badInput("attend", trace.error()); return; }
        if (!args->out.empty()) {
            auto saved = saveTrace(*trace, args->out);
            if (!saved) {
                sayFailure("attend", saved.error());
                exitCode = kExitFailure;
                return;
            }
        }
        if (args->json) std::cout << traceToJson(*trace) << "\n";
        else if (args->csv) std::cout << traceToCsv(*trace);
        else printTraceText(*trace);
    });
}

void addReinforceCommand(CLI::App& app, int& exitCode) {
    struct Args {
        std::string probs = "0.5,0.3,0.2", rewards = "1,2,5";
        ScoreFunctionCheckInput input;
        bool json = false;
    };
    auto args = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "reinforce",
        "Check the score-function (REINFORCE) gradient on a categorical with known probabilities "
        "and rewards: Monte-Carlo against exact, without and with a moving-average baseline.");
    cmd->add_option("--probs", args->probs, "category probabilities")->capture_default_str();
    cmd->add_option("--rewards", args->rewards, "reward of each category")->capture_default_str();
    cmd->add_option("--samples", args->input.samples, "draws")->capture_default_str()
        ->check(CLI::Range(std::int64_t{2}, std::int64_t{10'000'000}));
    cmd->add_option("--seed", args->input.seed, "seed")->capture_default_str();
    cmd->add_option("--decay", args->input.baselineDecay, "baseline decay")->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag("--json", args->json, "print one JSON object");
    cmd->callback([args, &exitCode] {
        auto probs = parseNumberList(args->probs, "probabilities");
        if (!probs) { exitCode = badInput("reinforce", probs.error()); return; }
        auto rewards = parseNumberList(args->rewards, "rewards");
        if (!rewards) { exitCode = badInput("reinforce", rewards.error()); return; }
        args->input.probs = *probs;
        args->input.rewards = *rewards;
        auto check = checkScoreFunctionGradient(args->input);
        if (!check) { exitCode = badInput("reinforce", check.error()); return; }
        if (args->json) { std::cout << scoreFunctionCheckToJson(*check) << "\n"; return; }
        const auto& c = *check;
        std::cout << std::fixed << std::setprecision(5);
        std::cout << "gradient of E[r] w.r.t. each logit, " << c.samples << " samples\n";
        std::cout << "logit     exact   no baseline (+-se)      moving-average baseline (+-se)\n";
        for (size_t j = 0; j < c.exact.size(); ++j) {
            std::cout << std::setw(5) << j << std::setw(10) << c.exact[j] << std::setw(11)
                      << c.meanNoBaseline[j] << " +- " << std::setw(8) << c.stderrNoBaseline[j]
                      << std::setw(12) << c.meanBaseline[j] << " +- " << std::setw(8)
                      << c.stderrBaseline[j] << "\n";
        }
        std::cout << "variance per sample: " << c.varianceNoBaseline << " without, "
                  << c.varianceBaseline << " with baseline; ratio " << std::setprecision(2)
                  << c.varianceRatio << "x\n";
        std::cout << "largest |estimate - exact| / stderr: " << c.maxAbsZ << "\n";
    });
}

}  // namespace saccade::cli
