// saccade-cli bench import: what opening and using a model of one's own costs, beside plain
// PyTorch on the same file (scripts/import_reference.py) in the same run and threads.
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "data/image_io.h"
#include "input_options.h"
#include "models/script/script_bench.h"
#include "reference_runner.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

struct BenchImportArgs {
    std::string model, image, dataset, reference, device = "auto";
    InputOptions input;
    std::int64_t limit = 200;
    int repeats = 5, batch = 100;
    bool json = false;
};

nlohmann::json optionalMs(double ms) { return ms < 0 ? nlohmann::json() : nlohmann::json(ms); }

nlohmann::json resultJson(const ImportBenchResult& r) {
    return {{"device", r.device}, {"threads", r.threads}, {"model", r.summary}, {"preprocessing", r.preprocessing},
            {"open_ms", r.openMs}, {"first_trace_ms", r.firstTraceMs}, {"warm_trace_ms", r.warmTraceMs},
            {"switch_ms", optionalMs(r.switchMs)}, {"switch", r.switchRules.empty() ? nlohmann::json() : nlohmann::json(r.switchRules)},
            {"eval_ms_per_image", optionalMs(r.evalMsPerImage)}, {"read_ms_per_image", optionalMs(r.readMsPerImage)},
            {"eval_images", r.evalImages}};
}

// The reference's figures and ours over them; false when the script could not give them.
bool addReference(const BenchImportArgs& a, const ImportBenchResult& r, nlohmann::json& out) {
    const std::vector<std::string> args = {"--model", a.model, "--size", std::to_string(r.inputSize), "--channels",
                                           std::to_string(r.channels), "--repeats", std::to_string(a.repeats),
                                           "--images", std::to_string(r.evalImages > 0 ? r.evalImages : 0),
                                           "--batch", std::to_string(a.batch)};
    const auto ref = runReferenceScript("bench import", a.reference, args, r.threads);
    if (ref.empty()) return false;
    for (const char* key : {"open_ms", "warm_forward_ms"})
        if (!ref.contains(key) || !ref[key].is_number() || ref[key].get<double>() <= 0) {
            std::cerr << "saccade-cli bench import: " << a.reference << " printed no positive " << key << "\n";
            return false;
        }
    out["reference"] = ref;
    out["ratios"] = {{"open", r.openMs / ref["open_ms"].get<double>()},
                     {"warm_trace", r.warmTraceMs / ref["warm_forward_ms"].get<double>()},
                     {"eval_per_image", nlohmann::json()}, {"eval_per_image_without_reading", nlohmann::json()}};
    if (r.evalMsPerImage > 0 && ref.contains("batched_ms_per_image") && ref["batched_ms_per_image"].is_number()) {
        const double batched = ref["batched_ms_per_image"].get<double>();
        out["ratios"]["eval_per_image"] = r.evalMsPerImage / batched;
        out["ratios"]["eval_per_image_without_reading"] = (r.evalMsPerImage - r.readMsPerImage) / batched;
    }
    return true;
}

void printText(const BenchImportArgs& a, const ImportBenchResult& r, const nlohmann::json& out) {
    std::cout << std::fixed << std::setprecision(1) << a.model << " on " << r.device << ", " << r.threads
              << " thread(s): " << r.summary << "\n  preprocessing: " << r.preprocessing << "\n"
              << "  open (load + one checked forward): " << r.openMs << " ms\n"
              << "  first trace: " << r.firstTraceMs << " ms   warm trace: " << r.warmTraceMs << " ms\n";
    if (r.switchMs >= 0) std::cout << "  switch between maps of one forward (" << r.switchRules << "): " << r.switchMs << " ms (target < 50)\n";
    if (r.evalMsPerImage >= 0)
        std::cout << "  eval of " << r.evalImages << " images: " << r.evalMsPerImage << " ms per image, of which reading the image "
                  << "(decoding, resizing, cropping) " << r.readMsPerImage << " ms\n";
    if (!out.contains("reference")) return;
    const auto& ref = out["reference"];
    const auto& q = out["ratios"];
    std::cout << "reference (PyTorch " << ref.value("torch", std::string("?")) << ", same threads): open "
              << ref["open_ms"].get<double>() << " ms, warm forward " << ref["warm_forward_ms"].get<double>() << " ms";
    if (ref.contains("batched_ms_per_image") && ref["batched_ms_per_image"].is_number())
        std::cout << ", batched forward " << ref["batched_ms_per_image"].get<double>() << " ms per image";
    std::cout << std::setprecision(2) << "\n  ours/reference: open " << q["open"].get<double>() << "x (target <= 1.5), warm trace "
              << q["warm_trace"].get<double>() << "x (target <= 1.2)";
    if (q["eval_per_image"].is_number())
        std::cout << ", eval " << q["eval_per_image"].get<double>() << "x, without reading the images "
                  << q["eval_per_image_without_reading"].get<double>() << "x (target <= 1.2)";
    std::cout << "\n";
}

}  // namespace

void addBenchImport(CLI::App& bench, int& exitCode) {
    auto a = std::make_shared<BenchImportArgs>();
    auto* cmd = bench.add_subcommand(
        "import", "A model of your own: open (load plus its checked forward), first and warm trace, a switch between "
                  "maps of one forward, and a folder's eval per image; with --reference, plain PyTorch on the same "
                  "file (scripts/import_reference.py) in the same run and threads, and the ratios.");
    cmd->add_option("--model", a->model, "the model file (TorchScript or a Saccade checkpoint)")->required()->check(regularFile());
    cmd->add_option("--image", a->image, "the image to trace (any size)")->required()->check(regularFile());
    cmd->add_option("--dataset", a->dataset, "also evaluate this dataset or image folder");
    cmd->add_option("--limit", a->limit, "images evaluated")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--repeats", a->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--reference", a->reference, "path of scripts/import_reference.py (run with /usr/bin/python3, same threads)")
        ->check(regularFile());
    cmd->add_flag("--json", a->json, "print one JSON object");
    addInputOptions(cmd, a->input);
    cmd->callback([a, &exitCode] {
        ImportBenchOptions o;
        o.model = a->model;
        o.device = a->device;
        o.dataset = a->dataset;
        o.evalImages = a->limit;
        o.repeats = a->repeats;
        auto overrides = parseInputOverrides(a->input.resize, a->input.crop, a->input.mean, a->input.std);
        if (!overrides) { exitCode = badInput("bench import", overrides.error()); return; }
        o.input = *overrides;
        auto image = loadImage(a->image);
        if (!image) { exitCode = badInput("bench import", image.error()); return; }
        o.image = *image;
        auto r = benchImport(o);
        if (!r) { exitCode = badInput("bench import", r.error()); return; }
        auto out = resultJson(*r);
        if (!a->reference.empty() && !addReference(*a, *r, out)) { exitCode = kExitFailure; return; }
        if (a->json) { std::cout << out.dump(2) << "\n"; return; }
        printText(*a, *r, out);
    });
}

}  // namespace saccade::cli
