// saccade-cli scalar: the worked example of hard against soft attention.
#include <iomanip>
#include <iostream>
#include <memory>

#include "analysis/labs/scalar_lab.h"
#include "commands.h"
#include "common/parse.h"

namespace saccade::cli {

namespace {

struct ScalarArgs {
    std::string values, probs, function = "square";
    double u = -1;
    std::uint64_t seed = 1;
    std::int64_t samples = 0;
    bool json = false;
};

void printText(const ScalarLabResult& r) {
    std::cout << std::setprecision(10);
    std::cout << "f                      " << r.function << "\n";
    std::cout << "soft context           " << r.softContext << "\n";
    std::cout << "expected hard context  " << r.expectedHardContext << "\n";
    std::cout << "f(soft)                " << r.fSoft << "\n";
    std::cout << "E[f(hard)] (exact)     " << r.expectedFHard << "   (std " << r.stdFHard
              << "; E[f(hard)] - f(soft) = " << r.expectedFHard - r.fSoft << ")\n";
    std::cout << "argmax choice          index " << r.argmaxIndex << ", value " << r.argmaxValue
              << ", f = " << r.fArgmax << "\n";
    std::cout << "hard draw              u = " << r.draw.u << " selects index " << r.draw.index
              << ", value " << r.draw.value << ", f = " << r.draw.f << "\n";
    if (r.mc) {
        std::cout << "Monte-Carlo E[f(hard)] " << r.mc->meanFHard << " +- " << r.mc->stderrFHard
                  << " (stderr, n = " << r.mc->n << ")\n";
    }
}

}  // namespace

void addScalarCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<ScalarArgs>();
    auto* cmd = app.add_subcommand(
        "scalar",
        "The scalar lab: soft context, one hard draw, E[f(hard)] against f(soft), argmax.");
    cmd->add_option("--values", args->values, "candidate values, e.g. 2,6,10")->required();
    cmd->add_option("--probs", args->probs, "selection probabilities, e.g. 0.5,0.3,0.2 (sum 1)")
        ->required();
    cmd->add_option("--f", args->function,
                    "downstream f: identity, square, cube, relu, tanh, sigmoid, exp, or "
                    "poly:c0,c1,... (default square)");
    cmd->add_option("--u", args->u, "the uniform draw in [0,1) (default: drawn from --seed)");
    cmd->add_option("--samples", args->samples, "Monte-Carlo draws of f(hard) (default 0)");
    cmd->add_option("--seed", args->seed, "seed for the draw and the Monte-Carlo (default 1)");
    cmd->add_flag("--json", args->json, "print one JSON object");
    cmd->callback([args, cmd, &exitCode] {
        ScalarLabInput in;
        auto values = parseNumberList(args->values, "values");
        if (!values) { exitCode = badInput("scalar", values.error()); return; }
        auto probs = parseNumberList(args->probs, "probabilities");
        if (!probs) { exitCode = badInput("scalar", probs.error()); return; }
        in.values = *values;
        in.probs = *probs;
        in.function = args->function;
        if (cmd->count("--u")) in.u = args->u;
        in.seed = args->seed;
        in.samples = args->samples;
        auto result = runScalarLab(in);
        if (!result) { exitCode = badInput("scalar", result.error()); return; }
        if (args->json) std::cout << scalarLabToJson(*result) << "\n";
        else printText(*result);
    });
}

}  // namespace saccade::cli
