// saccade-cli bench all: every family's speed against its plain PyTorch reference in one run,
// with the processor, the BLAS and the kernel sets named, as a table or one JSON object
// (schema saccade.bench_all). Each family's bench runs as a child process of this program (the
// same binary, the same thread count), so one family's warm caches and allocator state never
// flatter the next one's figures.

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_process.h"
#include "commands.h"
#include "common/runtime.h"
#include "common/samples_dir.h"
#include "doctor/doctor.h"

namespace saccade::cli {

namespace {

/// One figure of a family's bench: where ours and the reference's are in its JSON.
struct Figure {
    std::string label;
    std::string ours, reference;  ///< JSON pointers
    std::string unit;             ///< "images/s", "sentences/s" (higher is faster) or "ms" (lower is)
    double target = 0;            ///< how many times faster ours must be
};

struct Family {
    std::string bench;   ///< the `bench` subcommand
    std::string script;  ///< its reference script's file name
    std::vector<std::string> args;
    std::vector<Figure> figures;
};

std::vector<Family> families() {
    std::vector<Figure> seq;
    for (const std::string s : {"additive", "general", "dot", "scaled-dot"}) {
        seq.push_back({"sequence training, " + s, "/scorers/" + s + "/train/sentences_per_s",
                       "/scorers/" + s + "/reference/train/sentences_per_s", "sentences/s", 2});
        seq.push_back({"1,000 greedy translations, " + s, "/scorers/" + s + "/translate/ms",
                       "/scorers/" + s + "/reference/translate/ms", "ms", 3});
    }
    const std::string patch = findSamplesDir() + "/models/patch-soft-fashion60.pt";
    return {
        {"caption", "sat_reference.py", {},
         {{"captioner training", "/train/images_per_s", "/reference/train/images_per_s", "images/s", 3},
          {"1,000 stochastic captions", "/captions/ms", "/reference/captions/ms", "ms", 10}}},
        {"seq", "seq2seq_reference.py", {}, seq},
        {"ram", "ram_reference.py", {},
         {{"RAM training (reference: crop loop)", "/train_images_per_s", "/reference/train_loop/images_per_s", "images/s", 3},
          {"RAM training (reference: grid_sample)", "/train_images_per_s", "/reference/train_grid/images_per_s", "images/s", 1.5},
          {"1,000 RAM episodes of one image", "/episodes_ms", "/reference/episodes_grid/ms", "ms", 4}}},
        {"vit", "vit_reference.py", {},
         {{"ViT training", "/train/images_per_s", "/reference/train/images_per_s", "images/s", 1.5}}},
        {"attribute", "attribution_reference.py", {"--model", patch},
         {{"integrated gradients, 64 steps (reference: one batch)", "/ms", "/reference/batched_ms", "ms", 3}}},
    };
}

// The first of `folders` holding `script`, or empty.
std::string findScript(const std::vector<std::string>& folders, const std::string& script) {
    for (const auto& folder : folders) {
        const auto path = std::filesystem::path(folder) / script;
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) return path.string();
    }
    return {};
}

// One family's bench in a child process; its JSON, or an object holding "error".
nlohmann::json runFamily(const Family& f, const std::string& script, int threads) {
    std::vector<std::string> argv = {"/proc/self/exe", "--threads", std::to_string(threads), "bench", f.bench, "--json"};
    if (!script.empty()) argv.insert(argv.end(), {"--reference", script});
    argv.insert(argv.end(), f.args.begin(), f.args.end());
    auto child = startChild(argv, {}, ChildOutput::Capture, ChildOutput::Inherit);
    if (!child) return {{"error", child.error()}};
    auto [status, output] = finishChild(child.value());
    auto j = nlohmann::json::parse(output, nullptr, false);
    if (status != 0 || j.is_discarded() || !j.is_object())
        return {{"error", "saccade-cli bench " + f.bench + " exited with status " + std::to_string(status) +
                              (j.is_discarded() ? " and printed no JSON" : "")}};
    return j;
}

nlohmann::json numberAt(const nlohmann::json& j, const std::string& pointer) {
    const nlohmann::json::json_pointer p(pointer);
    return j.contains(p) && j.at(p).is_number() && j.at(p).get<double>() > 0 ? j.at(p) : nlohmann::json();
}

nlohmann::json figureRow(const Family& family, const Figure& f, const nlohmann::json& result) {
    const auto ours = numberAt(result, f.ours), ref = numberAt(result, f.reference);
    nlohmann::json row{{"family", family.bench}, {"figure", f.label}, {"unit", f.unit}, {"ours", ours},
                       {"reference", ref}, {"target", f.target}, {"ratio", nullptr}, {"met", nullptr}};
    if (!ours.is_null() && !ref.is_null()) {
        const double ratio = f.unit == "ms" ? ref.get<double>() / ours.get<double>() : ours.get<double>() / ref.get<double>();
        row["ratio"] = ratio;
        row["met"] = ratio >= f.target;
    }
    return row;
}

nlohmann::json machineJson(int threads) {
    const auto m = describeMachine();
    return {{"cpu", m.cpuModel},         {"hardware_threads", m.hardwareThreads}, {"threads", threads},
            {"blas", m.blasName},        {"blas_kernels", m.blasKernels},       {"OPENBLAS_CORETYPE", m.blasCoreType},
            {"saccade_kernels", m.saccadeKernels}, {"libtorch", m.torchVersion}};
}

std::string shown(const nlohmann::json& v, const std::string& unit) {
    if (v.is_null()) return "not measured";
    std::ostringstream s;
    s << std::fixed << std::setprecision(unit == "ms" ? 1 : 0) << v.get<double>() << " " << unit;
    return s.str();
}

void printTable(const nlohmann::json& out) {
    const auto& m = out["machine"];
    std::cout << "Speed against plain PyTorch on " << m["cpu"].get<std::string>() << " ("
              << m["hardware_threads"].get<int>() << " hardware threads), " << m["threads"].get<int>()
              << " thread(s) each side\nBLAS " << m["blas"].get<std::string>() << ", kernels "
              << (m["blas_kernels"].get<std::string>().empty() ? "-" : m["blas_kernels"].get<std::string>())
              << "; Saccade's kernels " << m["saccade_kernels"].get<std::string>() << "; LibTorch "
              << m["libtorch"].get<std::string>() << "\n\n";
    std::cout << std::left << std::setw(54) << "figure" << std::setw(20) << "ours" << std::setw(20) << "reference"
              << std::setw(9) << "ratio" << std::setw(8) << "target" << "met\n";
    int met = 0, measured = 0;
    for (const auto& r : out["figures"]) {
        std::ostringstream ratio;
        if (!r["ratio"].is_null()) ratio << std::fixed << std::setprecision(2) << r["ratio"].get<double>() << "x";
        std::ostringstream target;
        target << r["target"].get<double>() << "x";
        std::cout << std::setw(54) << r["figure"].get<std::string>() << std::setw(20)
                  << shown(r["ours"], r["unit"].get<std::string>()) << std::setw(20)
                  << shown(r["reference"], r["unit"].get<std::string>()) << std::setw(9)
                  << (r["ratio"].is_null() ? "-" : ratio.str()) << std::setw(8) << target.str()
                  << (r["met"].is_null() ? "-" : r["met"].get<bool>() ? "yes" : "NO") << "\n";
        if (!r["met"].is_null()) ++measured, met += r["met"].get<bool>();
    }
    std::cout << "\n" << met << " of " << measured << " measured targets met";
    if (measured < int(out["figures"].size()))
        std::cout << " (" << out["figures"].size() - measured << " figure(s) without a reference: give --reference DIR)";
    std::cout << "\n";
}

}  // namespace

void addBenchAll(CLI::App& bench, int& exitCode) {
    auto folders = std::make_shared<std::vector<std::string>>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "all", "Every family's speed against its plain PyTorch reference in one run (caption, seq, ram, vit, attribute), "
               "each in its own process with this program's --threads; the CPU, the BLAS and the kernel sets named; "
               "a table, or one JSON object (schema saccade.bench_all).");
    cmd->add_option("--reference", *folders,
                    "a folder of reference scripts (sat_reference.py, seq2seq_reference.py, ram_reference.py, "
                    "vit_reference.py, attribution_reference.py); repeat for several, e.g. --reference ../shared/bench "
                    "--reference scripts. Without it, our figures alone")
        ->check(CLI::ExistingDirectory);
    auto only = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--family", *only, "only this family's bench (caption, seq, ram, vit or attribute); repeat for several")
        ->check(CLI::IsMember({"caption", "seq", "ram", "vit", "attribute"}));
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([folders, only, json, &exitCode] {
        const int threads = computeThreads();
        nlohmann::json out{{"schema", "saccade.bench_all"}, {"version", 1}, {"machine", machineJson(threads)}};
        out["figures"] = nlohmann::json::array();
        out["families"] = nlohmann::json::object();
        auto all = families();
        if (!only->empty())
            all.erase(std::remove_if(all.begin(), all.end(),
                                     [&](const Family& f) { return std::find(only->begin(), only->end(), f.bench) == only->end(); }),
                      all.end());
        for (std::size_t i = 0; i < all.size(); ++i) {
            const auto& f = all[i];
            const auto script = findScript(*folders, f.script);
            std::cerr << "bench all: " << f.bench << " (" << i + 1 << " of " << all.size() << ")"
                      << (script.empty() ? ", no reference" : ", reference " + script) << "\n";
            auto result = runFamily(f, script, threads);
            if (result.contains("error")) {
                std::cerr << "bench all: " << f.bench << ": " << result["error"].get<std::string>() << "\n";
                exitCode = kExitFailure;
            }
            for (const auto& figure : f.figures) out["figures"].push_back(figureRow(f, figure, result));
            out["families"][f.bench] = std::move(result);
        }
        if (*json)
            std::cout << out.dump(2) << "\n";
        else
            printTable(out);
    });
}

}  // namespace saccade::cli
