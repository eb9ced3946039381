// bench attention: what every attention variant costs as the input grows, and what it gets wrong.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "analysis/length/length_bench.h"
#include "commands.h"
#include "common/parse.h"
#include "length_options.h"
#include "reference_runner.h"
#include "strict_options.h"

namespace saccade::cli {
namespace {

struct BenchAttentionArgs {
    LengthBenchOptions bench;
    std::string lengths = "256,1024,4096,16384";
    std::string variants = "all";
    std::string reference;
    bool noBackward = false, noErrors = false, json = false;
};

/// Adds PyTorch's figures for full attention and the ratios ours / PyTorch's, per length.
bool addReference(const BenchAttentionArgs& a, const LengthBenchResult& r, nlohmann::ordered_json& out) {
    std::string lengths;
    for (auto n : a.bench.lengths) lengths += (lengths.empty() ? "" : ",") + std::to_string(n);
    const std::vector<std::string> args = {"--lengths", lengths, "--dim", std::to_string(a.bench.dim), "--heads",
                                           std::to_string(a.bench.heads), "--batch", std::to_string(a.bench.batch),
                                           "--repeats", std::to_string(a.bench.repeats), "--threads",
                                           std::to_string(r.threads), "--seed", std::to_string(a.bench.seed)};
    const auto ref = runReferenceScript("bench attention", a.reference, args, r.threads);
    if (ref.empty()) return false;  // the runner said why
    const auto rowOk = [](const nlohmann::json& row) {
        return row.is_object() && row.contains("ms") && row["ms"].is_number() && row["ms"].get<double>() > 0;
    };
    if (!ref.contains("full") || !ref["full"].is_array() || ref["full"].size() != a.bench.lengths.size() ||
        !std::all_of(ref["full"].begin(), ref["full"].end(), rowOk)) {
        std::cerr << "saccade-cli bench attention: " << a.reference << " printed no 'full' row with a positive 'ms' for each length\n";
        return false;
    }
    out["reference"] = nlohmann::ordered_json::parse(ref.dump());
    nlohmann::ordered_json ratios = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < a.bench.lengths.size(); ++i) {
        const auto& row = ref["full"][i];
        nlohmann::ordered_json ratio = {{"n", a.bench.lengths[i]}};
        for (auto variant : {AttentionVariant::Full, AttentionVariant::MemoryEfficient}) {
            if (!r.points.count(variant)) continue;
            const auto& p = r.points.at(variant)[i];
            const auto name = attentionVariantName(variant);
            ratio[name + "_ms_over_reference"] = p.forwardMs / row["ms"].get<double>();
            if (p.backwardMs && row.contains("backward_ms") && row["backward_ms"].is_number())
                ratio[name + "_backward_ms_over_reference"] = *p.backwardMs / row["backward_ms"].get<double>();
        }
        ratios.push_back(ratio);
    }
    out["ratios"] = ratios;
    return true;
}

std::string figure(const nlohmann::ordered_json& v, int precision) {
    if (v.is_null()) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(precision) << v.get<double>();
    return s.str();
}

void printTable(const nlohmann::ordered_json& out) {
    std::cout << "attention at length on " << out["device"].get<std::string>() << ", " << out["threads"] << " thread(s): "
              << out["heads"] << " head(s) of width " << out["dim"] << ", batch " << out["batch"]
              << "; matrix product " << figure(out["matmul_gflops"], 1) << " GFLOP/s\n";
    std::cout << std::left << std::setw(18) << "variant" << std::right << std::setw(7) << "n" << std::setw(11) << "fwd ms"
              << std::setw(11) << "bwd ms" << std::setw(10) << "peak MB" << std::setw(10) << "bwd MB" << std::setw(11)
              << "max err" << std::setw(9) << "GFLOP/s" << "\n";
    for (const auto& [name, rows] : out["variants"].items()) {
        for (const auto& p : rows)
            std::cout << std::left << std::setw(18) << name << std::right << std::setw(7) << p["n"].get<std::int64_t>()
                      << std::setw(11) << figure(p["ms"], 2) << std::setw(11) << figure(p["backward_ms"], 2) << std::setw(10)
                      << figure(p["peak_mb"], 1) << std::setw(10) << figure(p["backward_peak_mb"], 1) << std::setw(11)
                      << (p["max_abs_error"].is_null() ? "-" : [&] {
                             std::ostringstream s;
                             s << std::scientific << std::setprecision(1) << p["max_abs_error"].get<double>();
                             return s.str();
                         }())
                      << std::setw(9) << figure(p["gflops"], 1) << "\n";
        std::cout << std::left << std::setw(18) << "" << "slope of time against n (log-log): "
                  << figure(out["slopes"][name], 2) << "\n";
    }
    if (out.contains("ratios"))
        for (const auto& r : out["ratios"])
            std::cout << "n = " << r["n"] << ": full / PyTorch = "
                      << figure(r.value("full_ms_over_reference", nlohmann::ordered_json(nullptr)), 2) << "x\n";
}

}  // namespace

void addBenchAttention(CLI::App& bench, int& exitCode) {
    auto a = std::make_shared<BenchAttentionArgs>();
    auto* cmd = bench.add_subcommand(
        "attention",
        "Every attention variant (full, memory_efficient, local, block_sparse, top_k, linear, performer) at each "
        "length: forward and backward ms, peak MB of the attention itself (CPU), max |error| against float64 exact "
        "attention, GFLOP/s against the machine's matrix product, and the slope of time against length.");
    cmd->add_option("--lengths", a->lengths, "comma-separated sequence lengths")->capture_default_str();
    cmd->add_option("--variants", a->variants, "comma-separated variants, or all")->capture_default_str();
    cmd->add_option("--dim", a->bench.dim, "width of each head")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--heads", a->bench.heads, "heads")->capture_default_str()->check(wholeNumberIn(1, 256));
    cmd->add_option("--batch", a->bench.batch, "batch")->capture_default_str()->check(wholeNumberIn(1, 4096));
    addVariantOptions(cmd, a->bench.variant);
    cmd->add_option("--repeats", a->bench.repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 100));
    cmd->add_option("--seed", a->bench.seed, "seed of the random queries, keys and values")->capture_default_str();
    cmd->add_option("--device", a->bench.device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--no-backward", a->noBackward, "time the forward pass only");
    cmd->add_flag("--no-errors", a->noErrors, "skip the float64 reference (errors null)");
    cmd->add_option("--reference", a->reference,
                    "scripts/attention_reference.py: plain PyTorch softmax(QK^T/sqrt(d))V at the same sizes and threads")
        ->check(regularFile());
    cmd->add_flag("--json", a->json, "print one JSON object (schema saccade.bench-attention)");
    cmd->callback([a, &exitCode] {
        const auto lengths = parseIntegerList(a->lengths, "--lengths", 1, 1 << 24);
        if (!lengths) { exitCode = badInput("bench attention", lengths.error()); return; }
        const auto variants = parseVariantList(a->variants);
        if (!variants) { exitCode = badInput("bench attention", variants.error()); return; }
        a->bench.lengths = *lengths;
        a->bench.variants = *variants;
        a->bench.backward = !a->noBackward;
        a->bench.errors = !a->noErrors;
        if (const auto problem = checkLengthBench(a->bench); !problem.empty()) {
            const bool memory = problem.find(" can be used here") != std::string::npos;
            exitCode = badInput("bench attention", problem + (memory ? " (leave it out with --variants, or use shorter lengths)" : ""));
            return;
        }
        const bool tty = isatty(STDERR_FILENO);
        const auto r = benchAttentionLengths(a->bench, [&](double f) {
            if (!a->json && tty) std::cerr << "\rmeasuring... " << int(f * 100) << "%" << std::flush;
            return true;
        });
        if (!a->json && tty) std::cerr << "\r              \r";
        if (!r) { exitCode = badInput("bench attention", r.error()); return; }
        auto out = nlohmann::ordered_json::parse(lengthBenchToJson(a->bench, *r));
        if (!a->reference.empty() && !addReference(*a, *r, out)) { exitCode = kExitFailure; return; }
        if (a->json) std::cout << out.dump(2) << "\n";
        else printTable(out);
    });
}

}  // namespace saccade::cli
