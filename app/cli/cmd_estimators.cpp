// saccade-cli estimators: the estimator lab (REINFORCE with and without baselines, straight-through
// Gumbel-softmax) on a categorical with known rewards, against the exact gradient.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/labs/estimator_lab.h"
#include "commands.h"
#include "common/atomic_file.h"
#include "common/parse.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

struct EstimatorArgs {
    std::string probs = "0.5,0.3,0.2", logits, rewards = "1,2,5", temperatures = "0.1,0.5,1,2";
    EstimatorLabInput input;
    std::string out;
    bool json = false;
};

std::string joinNumbers(const std::vector<double>& values, int precision = 4) {
    std::ostringstream s;
    s << std::setprecision(precision);
    for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
    return s.str();
}

// Fixed decimals where they read well; significant digits for very large or very small values
// (an exact estimator's variance is 0, its ratio infinite); "-" where a figure does not exist.
std::string tableNumber(double v, int precision) {
    if (std::isnan(v)) return "-";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::ostringstream s;
    const double magnitude = std::abs(v);
    if (magnitude >= 1e6 || (v != 0 && magnitude < std::pow(10.0, -precision)))
        s << std::setprecision(3) << v;
    else
        s << std::fixed << std::setprecision(precision) << v;
    return s.str();
}

void printEstimatorText(const EstimatorLabResult& r) {
    std::cout << "categorical p = " << joinNumbers(r.probs) << "; rewards "
              << joinNumbers(r.rewards) << "; E[r] = " << std::setprecision(6) << r.expectedReward
              << "\n";
    std::cout << "exact gradient dE[r]/dlogit = " << joinNumbers(r.exact, 6)
              << "; optimal constant baseline b* = " << r.optimalBaseline << "\n";
    std::cout << r.samples << " one-sample estimates per estimator, seed " << r.seed
              << " (the REINFORCE variants share their draws; every temperature shares its Gumbel "
                 "noise)\n\n";

    size_t width = 10;
    for (const auto& s : r.estimators) width = std::max(width, s.name.size() + 2);
    std::cout << std::left << std::setw(int(width)) << "estimator" << std::right << std::setw(13)
              << "variance" << std::setw(13) << "closed form" << std::setw(12) << "ratio"
              << std::setw(12) << "bias norm" << std::setw(10) << "max |z|"
              << "\n";
    for (const auto& s : r.estimators) {
        std::cout << std::left << std::setw(int(width)) << s.name << std::right << std::setw(13)
                  << tableNumber(s.totalVariance, 5) << std::setw(13)
                  << tableNumber(s.closedFormTotal, 5) << std::setw(11)
                  << tableNumber(s.varianceRatio, 2) << "x" << std::setw(12)
                  << tableNumber(s.biasNorm, 5) << std::setw(10) << tableNumber(s.maxAbsZ, 2)
                  << "\n";
    }
    std::cout << "(variance: of one sample's estimate, summed over logits; ratio: reinforce's "
                 "variance / this "
                 "one's; max |z|: largest |mean - exact| / stderr)\n\n";

    std::cout << "mean +- stderr per logit (exact " << joinNumbers(r.exact, 4) << ")\n";
    for (const auto& s : r.estimators) {
        std::cout << "  " << std::left << std::setw(int(width)) << s.name << std::right;
        for (size_t j = 0; j < s.mean.size(); ++j)
            std::cout << (j ? "   " : "") << std::setw(9) << tableNumber(s.mean[j], 5) << " +- "
                      << tableNumber(s.standardError[j], 5);
        std::cout << "\n";
    }
    if (r.training.empty()) return;
    std::cout << "\ntraining: " << r.trainSteps << " steps of gradient ascent, learning rate "
              << r.learningRate << ", " << r.trainSamples
              << " samples per step, same start and seed; final probabilities\n";
    for (const auto& t : r.training) {
        std::cout << "  " << std::left << std::setw(int(width)) << t.name << std::right
                  << joinNumbers(t.probs.back(), 4) << "   E[r] = " << std::setprecision(5)
                  << t.expectedReward.back() << "\n";
    }
}

}  // namespace

void addEstimatorsCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<EstimatorArgs>();
    auto& in = args->input;
    auto* cmd = app.add_subcommand(
        "estimators",
        "The estimator lab: one-sample gradient estimates of dE[r]/dlogits on a categorical with "
        "known "
        "rewards (REINFORCE without a baseline, with a moving-average baseline, with the optimal "
        "constant "
        "baseline; straight-through Gumbel-softmax at several temperatures), their bias and "
        "variance "
        "against the exact gradient, and gradient ascent under each from the same start and seed.");
    auto* probs =
        cmd->add_option("--probs", args->probs, "category probabilities (> 0, summing to 1)")
            ->capture_default_str();
    auto* logits = cmd->add_option("--logits", args->logits, "category logits instead of --probs");
    logits->excludes(probs);
    probs->excludes(logits);
    cmd->add_option("--rewards", args->rewards, "reward of each category")->capture_default_str();
    cmd->add_option("--samples", in.samples, "one-sample estimates per estimator")
        ->capture_default_str()
        ->check(wholeNumberIn(2, kEstimatorLabMaxCells));
    cmd->add_option("--seed", in.seed, "seed of every draw")->capture_default_str();
    cmd->add_option("--decay", in.baselineDecay, "decay of the moving-average baseline")
        ->capture_default_str()
        ->check(numberIn(0, 1));
    cmd->add_option("--temperatures", args->temperatures,
                    "Gumbel-softmax temperatures, comma-separated")
        ->capture_default_str();
    cmd->add_option("--bins", in.bins, "histogram bins per logit")
        ->capture_default_str()
        ->check(wholeNumberIn(2, kEstimatorLabMaxBins));
    cmd->add_option("--train-steps", in.trainSteps, "gradient-ascent steps (0: no training)")
        ->capture_default_str()
        ->check(wholeNumberIn(0, kEstimatorLabMaxTrainSteps));
    cmd->add_option("--lr", in.learningRate, "learning rate of the gradient ascent")
        ->capture_default_str()
        ->check(numberIn(1e-9, 1e6));
    cmd->add_option("--train-samples", in.trainSamples, "samples averaged per training step")
        ->capture_default_str()
        ->check(wholeNumberIn(1, kEstimatorLabMaxCells));
    cmd->add_flag("--json", args->json, "print one JSON object (schema saccade.estimators)");
    cmd->add_option("--out", args->out, "also save the JSON to this file (atomic)");
    cmd->footer(
        "Examples:\n"
        "  saccade-cli estimators --probs 0.5,0.3,0.2 --rewards 1,2,5 --samples 20000 --seed 1\n"
        "  saccade-cli estimators --logits 0,1,-1,0.5 --rewards 0,1,3,2 --temperatures 0.2,1 "
        "--json\n"
        "  saccade-cli estimators --rewards 11,12,15 --train-steps 300 --lr 0.1 --out "
        "estimators.json");
    cmd->callback([args, cmd, &exitCode] {
        auto& in = args->input;
        const bool fromLogits = cmd->count("--logits") > 0;
        auto categorical = parseNumberList(fromLogits ? args->logits : args->probs,
                                           fromLogits ? "logits" : "probabilities");
        if (!categorical) {
            exitCode = badInput("estimators", categorical.error());
            return;
        }
        (fromLogits ? in.logits : in.probs) = *categorical;
        auto rewards = parseNumberList(args->rewards, "rewards");
        if (!rewards) {
            exitCode = badInput("estimators", rewards.error());
            return;
        }
        in.rewards = *rewards;
        auto temperatures = parseNumberList(args->temperatures, "temperatures");
        if (!temperatures) {
            exitCode = badInput("estimators", temperatures.error());
            return;
        }
        in.temperatures = *temperatures;
        if (!args->out.empty()) {
            if (auto target = resolveSaveTarget(args->out); !target) {
                sayFailure("estimators", target.error());
                exitCode = kExitFailure;
                return;
            }
        }
        auto result = runEstimatorLab(in);
        if (!result) {
            exitCode = badInput("estimators", result.error());
            return;
        }
        const auto json = estimatorLabToJson(*result, args->json ? 2 : -1);
        if (!args->out.empty()) {
            if (auto saved = writeFileAtomic(args->out, json + "\n"); !saved) {
                sayFailure("estimators", saved.error());
                exitCode = kExitFailure;
                return;
            }
        }
        if (args->json) {
            std::cout << json << "\n";
            return;
        }
        printEstimatorText(*result);
        if (!args->out.empty()) std::cout << "\nwrote " << args->out << "\n";
    });
}

}  // namespace saccade::cli
