// saccade-cli bench attribute: an attribution map of one image, timed warm (integrated gradients
// by default, or any --method), and for integrated gradients beside the same computation in plain
// PyTorch autograd (scripts/attribution_reference.py: the textbook loop of one forward and
// backward per point, and one batch of all points) in the same run and threads.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "analysis/attribution/attribution.h"
#include "commands.h"
#include "io/json_fields.h"
#include "common/runtime.h"
#include "input_options.h"
#include "reference_runner.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

struct BenchAttributeArgs {
    std::string model, image, sample, rule, reference, device = "cpu";
    std::string method = "integrated-gradients", quadrature = "trapezoid";
    InputOptions input;
    int steps = 64, repeats = 5, threads = 1, samples = 16;
    bool json = false;
};

// The image's bytes (HWC) in a file for the reference; removed when the bench ends.
struct RawImageFile {
    std::string path;
    explicit RawImageFile(const Image& image)
        : path((std::filesystem::temp_directory_path() / ("saccade-attribution-" + std::to_string(::getpid()) + ".u8")).string()) {
        std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(image.pixels.data()), std::streamsize(image.pixels.size()));
    }
    ~RawImageFile() { std::filesystem::remove(path); }
};

// The reference's figures and the ratios over ours; false when it gave none.
bool addAttributionReference(const BenchAttributeArgs& a, const AttentionModel& model, const TraceInput& in,
                             const AttributionMap& map, double oursMs, nlohmann::json& out) {
    const RawImageFile raw(in.image);
    const auto ref = runReferenceScript(
        "bench attribute", a.reference,
        {"--model", a.model, "--image", raw.path, "--size", std::to_string(model.imageSize()), "--channels",
         std::to_string(model.channels()), "--steps", std::to_string(a.steps), "--target", std::to_string(map.target),
         "--rule", map.rule, "--repeats", std::to_string(a.repeats), "--threads", std::to_string(a.threads),
         "--attention-steps", std::to_string(model.steps()), "--grid", std::to_string(model.cellGrid().side)},
        a.threads);
    if (ref.empty()) return false;
    for (const char* key : {"loop_ms", "batched_ms", "f_input"})
        if (!ref.contains(key) || !ref[key].is_number()) {
            std::cerr << "saccade-cli bench attribute: " << a.reference << " printed no " << key << "\n";
            return false;
        }
    out["reference"] = ref;
    out["speedup_over_loop"] = ref["loop_ms"].get<double>() / oursMs;
    out["speedup_over_batched"] = ref["batched_ms"].get<double>() / oursMs;
    out["f_input_difference"] = std::abs(ref["f_input"].get<double>() - *map.fInput);
    return true;
}

void printBenchAttribute(const nlohmann::json& o) {
    std::cout << std::fixed << std::setprecision(2);
    if (o["method"] == "integrated-gradients")
        std::cout << "integrated gradients, " << o["steps"] << " steps (" << o["quadrature"].get<std::string>()
                  << ", black baseline)";
    else
        std::cout << o["method"].get<std::string>();
    std::cout << ", rule " << o["rule"].get<std::string>() << ", class " << o["target"] << ", " << o["threads"]
              << " thread(s): " << o["ms"].get<double>() << " ms (median of " << o["repeats"] << ", warm)";
    if (o["completeness_error"].is_number()) std::cout << ", completeness error " << 100 * o["completeness_error"].get<double>() << "%";
    std::cout << "\n";
    if (!o.contains("reference")) return;
    const auto& r = o["reference"];
    std::cout << "  PyTorch " << r["torch"].get<std::string>() << ": loop " << r["loop_ms"].get<double>() << " ms, batched "
              << r["batched_ms"].get<double>() << " ms; ours is " << o["speedup_over_loop"].get<double>()
              << "x faster than the loop, " << o["speedup_over_batched"].get<double>()
              << "x than the batched (target >= 3x); |f(x) ours - reference| = " << std::scientific
              << o["f_input_difference"].get<double>() << "\n";
}

int runBenchAttribute(const BenchAttributeArgs& a) {
    setComputeThreads(a.threads);
    if (!a.reference.empty() && a.method != "integrated-gradients")
        return badInput("bench attribute", "--reference times integrated gradients only, not --method " + a.method);
    auto model = loadModelWith(a.model, a.device, a.input);
    if (!model) return badInput("bench attribute", model.error());
    const std::string sample = a.image.empty() && a.sample.empty() ? (*model)->info().dataset + ":0" : a.sample;
    auto in = resolveInput(**model, a.image, sample);
    if (!in) return badInput("bench attribute", in.error());
    AttributionOptions o;
    o.method = a.method;
    o.quadrature = a.quadrature;  // trapezoid by default: what the reference script computes
    o.steps = a.steps;
    o.samples = a.samples;
    o.rule = a.rule;
    auto map = attribute(**model, in->image, o);  // the warm-up, and the figures
    if (!map) return badInput("bench attribute", map.error());
    std::vector<double> ms;
    for (int r = 0; r < a.repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        if (auto again = attribute(**model, in->image, o); !again) return badInput("bench attribute", again.error());
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    const bool ig = a.method == "integrated-gradients";
    nlohmann::json out{{"command", "bench attribute"}, {"model", a.model}, {"image", in->id}, {"device", (*model)->deviceName()},
                       {"threads", computeThreads()}, {"method", a.method}, {"rule", map->rule}, {"target", map->target},
                       {"steps", ig ? nlohmann::json(a.steps) : nlohmann::json(nullptr)},
                       {"quadrature", ig ? nlohmann::json(a.quadrature) : nlohmann::json(nullptr)},
                       {"samples", a.method == "smoothgrad" ? nlohmann::json(a.samples) : nlohmann::json(nullptr)},
                       {"repeats", a.repeats}, {"ms", ms[ms.size() / 2]}, {"completeness_error", measuredOrNull(map->completenessError)},
                       {"f_input", measuredOrNull(map->fInput)}, {"f_baseline", measuredOrNull(map->fBaseline)}};
    if (!a.reference.empty() && !addAttributionReference(a, **model, *in, *map, ms[ms.size() / 2], out)) return kExitFailure;
    if (a.json)
        std::cout << out.dump(2) << "\n";
    else
        printBenchAttribute(out);
    return 0;
}

}  // namespace

void addBenchAttribute(CLI::App& bench, int& exitCode) {
    auto a = std::make_shared<BenchAttributeArgs>();
    auto* cmd = bench.add_subcommand(
        "attribute", "An attribution map of one image, timed warm (median of --repeats after one warm-up): integrated "
                     "gradients (trapezoid, black baseline) by default, or any --method; with --reference, integrated "
                     "gradients in plain PyTorch autograd (scripts/attribution_reference.py: a per-step loop and one "
                     "batch) in the same run and threads, and how many times faster ours is.");
    cmd->add_option("--model", a->model, "a checkpoint or imported model (with --reference: a patch classifier, whose forward "
                                         "the reference re-implements)")
        ->required()->check(regularFile());
    cmd->add_option("--method", a->method, "the map: gradient, gradient-x-input, integrated-gradients, smoothgrad, occlusion, "
                                           "gradcam or gradient-rollout")
        ->capture_default_str();
    cmd->add_option("--quadrature", a->quadrature, "integrated gradients: trapezoid or gauss-legendre")->capture_default_str()
        ->check(CLI::IsMember({"trapezoid", "gauss-legendre"}));
    cmd->add_option("--samples", a->samples, "smoothgrad: noisy copies")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--image", a->image, "image file");
    cmd->add_option("--sample", a->sample, "test sample DATASET:INDEX (default: the model's dataset, image 0)");
    cmd->add_option("--steps", a->steps, "intervals of the path")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--rule", a->rule, "rule differentiated (default: the model's deterministic rule)");
    cmd->add_option("--repeats", a->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--threads", a->threads, "compute threads, ours and the reference's")->capture_default_str()
        ->check(wholeNumberIn(1, 256));
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--reference", a->reference, "path of scripts/attribution_reference.py (run with /usr/bin/python3)")
        ->check(regularFile());
    cmd->add_flag("--json", a->json, "print one JSON object");
    addInputOptions(cmd, a->input);
    cmd->callback([a, &exitCode] { exitCode = runBenchAttribute(*a); });
}

}  // namespace saccade::cli
