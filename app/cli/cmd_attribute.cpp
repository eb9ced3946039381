// saccade-cli attribute: an attribution map (gradient, gradient x input, integrated gradients,
// SmoothGrad, occlusion, Grad-CAM) of one image, beside the model's attention: its cells, the
// completeness of integrated gradients, and mass in the box and the pointing game scored as
// attention's are (analysis/attribution.h).

#include <iomanip>
#include <iostream>
#include <memory>

#include "analysis/attribution/attribution.h"
#include "attribute_text.h"
#include "commands.h"
#include "data/image_io.h"
#include "input_options.h"
#include "models/translator.h"
#include "render/trace_render.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

struct AttributeArgs {
    std::string model, image, sample, device = "auto", baseline, out, text, targetText;  // baseline "": the default
    InputOptions input;
    AttributionOptions options;
    int target = -1, step = -1;
    bool json = false, pixels = false;
    bool stepsGiven = false;      ///< --steps given: exactly that many, unless --tolerance is given too
    bool toleranceGiven = false;  ///< --tolerance given
    double tolerance = 0;
};


// The map over the image as a one-step trace: the renderer's heatmap, legend and box.
Trace attributionTrace(const AttributionMap& m, const TraceInput& in) {
    Trace t;
    t.modelId = m.method;
    t.imageId = in.id;
    t.rule = m.method + " (" + m.rule + ")";
    t.imageWidth = m.width;
    t.imageHeight = m.height;
    TraceStep step;
    double total = 0;
    for (double v : m.magnitude) total += v;
    GridDistribution grid{m.height, m.width, {}};
    for (double v : m.magnitude) grid.probs.push_back(float(total > 0 ? v / total : 0.0));
    step.grid = std::move(grid);
    t.steps.push_back(std::move(step));
    t.groundTruth = in.truth;
    return t;
}

void printAttribution(const AttributionMap& m) {
    std::cout << std::fixed << std::setprecision(3) << m.method << " (" << m.rule << " rule) of ";
    if (m.step)  // a word of the model's caption
        std::cout << "the word '" << m.word << "' at step " << *m.step << " of '" << m.caption << "' (word " << m.target
                  << ", predicted " << m.predicted << ")";
    else
        std::cout << "class " << m.target << " (predicted " << m.predicted << ")";
    std::cout << ", " << m.rows << "x" << m.cols << " cells, " << m.forwards
              << " images through the model, " << m.seconds << " s\n";
    if (m.completenessError) {
        std::cout << "  completeness: sum " << *m.attributionSum << " vs f(x) - f(baseline) = " << *m.fInput << " - "
                  << *m.fBaseline << ", error " << std::setprecision(2) << 100 * *m.completenessError << "% with "
                  << m.steps.value_or(0) << " steps";
        if (m.converged && *m.converged) std::cout << " (within the " << 100 * *m.tolerance << "% tolerance)";
        std::cout << "\n";
        if (!m.convergence.empty()) std::cout << "  " << m.convergence << "\n";
    }
    if (m.massInBox)
        std::cout << std::setprecision(1) << "  mass in box " << 100 * *m.massInBox << "% of the cells ("
                  << 100 * *m.massInBoxPixels << "% of the pixels; the box is " << 100 * *m.boxArea
                  << "% of the image), pointing game " << (*m.pointing ? "hit" : "miss") << "\n";
    if (m.attentionMassInBox)
        std::cout << "  attention at this step: mass on the named object " << 100 * *m.attentionMassInBox
                  << "%, pointing game " << (*m.attentionPointing ? "hit" : "miss") << "\n";
    if (m.step && !m.massInBox)
        std::cout << "  mass on the object and pointing game: not measured (the word names no object of the truth)\n";
    else if (!m.massInBox)
        std::cout << "  mass in box and pointing game: not measured (the image has no box)\n";
}

// The baseline named by --baseline: black, mean, or an image file read with the model's channels.
Result<Unit> setAttributionBaseline(AttributionOptions& o, const std::string& baseline, int channels) {
    if (baseline == "black" || baseline == "mean") {
        o.baseline = baseline;
        return Unit{};
    }
    ImageLoadOptions lo;
    lo.channels = channels;
    auto loaded = loadImage(baseline, lo);
    if (!loaded) return Error{"--baseline: " + loaded.error()};
    o.baseline = "image";
    o.baselineImage = *loaded;
    return Unit{};
}

// --text: the sequence model's options from the shared ones.
int runAttributeOnText(const AttributeArgs& a) {
    if (!a.image.empty() || !a.sample.empty()) return badInput("attribute", "give --text or an image (--image, --sample), not both");
    AttributeTextArgs t;
    t.model = a.model;
    t.device = a.device;
    t.text = a.text;
    t.targetText = a.targetText;
    t.out = a.out;
    t.json = a.json;
    t.target = a.target;
    t.options.method = a.options.method;
    t.options.rule = a.options.rule;
    t.options.steps = a.options.steps;
    t.options.quadrature = a.options.quadrature;
    if (a.toleranceGiven)
        return badInput("attribute", "--tolerance is for integrated gradients on an image; with --text, give --steps");
    if (a.baseline == "black")  // the images' default, given by name: not silently another baseline
        return badInput("attribute", "--baseline " + a.baseline + " is an image's; with --text it is unknown (the default) or zero");
    if (a.step >= 0)
        return badInput("attribute", "--step picks a captioner's word; with --text, --target picks the output position");
    t.options.baseline = a.baseline.empty() ? "unknown" : a.baseline;
    return runAttributeText(t);
}

int runAttribute(AttributeArgs a) {
    if (!a.text.empty()) return runAttributeOnText(a);
    if (!a.targetText.empty()) return badInput("attribute", "--target-text goes with --text");
    if (a.pixels && !a.json) return badInput("attribute", "--pixels goes with --json");
    if (fileReadsText(a.model))
        return badInput("attribute", a.model + " reads text: give --text \"...\" to attribute its output over the source");
    if (a.target >= 0) a.options.target = a.target;
    if (a.step >= 0) a.options.step = a.step;
    if (a.toleranceGiven) a.options.tolerance = a.tolerance;
    else if (!a.stepsGiven) a.options.tolerance = kDefaultIgTolerance;
    if (auto ok = checkAttributionOptions(a.options); !ok) return badInput("attribute", ok.error());
    if (a.image.empty() == a.sample.empty()) return badInput("attribute", "give exactly one of --image FILE and --sample DATASET:INDEX");
    auto model = loadModelWith(a.model, a.device, a.input);
    if (!model) return badInput("attribute", model.error());
    if (auto ok = setAttributionBaseline(a.options, a.baseline.empty() ? "black" : a.baseline, (*model)->channels()); !ok) return badInput("attribute", ok.error());
    auto input = resolveInput(**model, a.image, a.sample);
    if (!input) return badInput("attribute", input.error());
    auto map = attribute(**model, input->image, a.options, input->truth);
    if (!map) return badInput("attribute", map.error());
    if (!a.out.empty()) {
        RenderOptions ro;
        ro.chosen = false;
        ro.path = false;
        ro.stepNumbers = false;
        auto written = saveImagePng(renderTraceStep(input->image, attributionTrace(*map, *input), 0, ro), a.out);
        if (!written) {
            sayFailure("attribute", written.error());
            return kExitFailure;
        }
    }
    if (a.json)
        std::cout << attributionToJson(*map, a.pixels) << "\n";
    else
        printAttribution(*map);
    if (!a.out.empty() && !a.json) std::cout << "wrote " << a.out << "\n";
    return 0;
}

}  // namespace

void addAttributeCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<AttributeArgs>();
    auto* cmd = app.add_subcommand(
        "attribute", "An attribution map of one image beside attention: gradient, gradient-x-input, "
                     "integrated-gradients (with its completeness error), smoothgrad, occlusion, gradcam or gradient-rollout, pooled to "
                     "the model's cells and scored on the box (mass in box, pointing game) as attention is. With --text, a sequence "
                     "model's attribution of each output token over the source tokens.");
    cmd->add_option("--model", a->model, "checkpoint (.pt) or TorchScript file")->required();
    cmd->add_option("--image", a->image, "image file (fitted to the model's input)");
    cmd->add_option("--sample", a->sample, "test sample DATASET:INDEX (with its box)");
    cmd->add_option("--text", a->text, "sequence models: the source text; each output token is attributed over its tokens");
    cmd->add_option("--target-text", a->targetText, "with --text: the output explained (default: the model's own translation)");
    cmd->add_option("--method", a->options.method, "gradient, gradient-x-input, integrated-gradients, smoothgrad, "
                                                   "occlusion, gradcam or gradient-rollout (transformers); with --text: "
                                                   "attention, rollout, gradient, gradient-x-input, integrated-gradients or occlusion")->required();
    cmd->add_option("--target", a->target, "class attributed (default: the predicted one); with --text: the one output "
                                           "position printed (default: all)")->check(wholeNumberIn(0, 1000000));
    cmd->add_option("--step", a->step, "captioners: the word attributed, by its index in the caption (default: the "
                                       "first word that names an object, else the first)")->check(wholeNumberIn(0, 1000000));
    cmd->add_option("--rule", a->options.rule, "rule differentiated (default: soft for a model trained soft, else its deterministic rule)");
    cmd->add_option("--steps", a->options.steps, "integrated gradients: intervals of the path; given alone, exactly that "
                                                 "many (default: from 64, doubled until the completeness error is within "
                                                 "--tolerance)")
        ->capture_default_str()->check(wholeNumberIn(0, 100000));
    cmd->add_option("--tolerance", a->tolerance, "integrated gradients: the completeness error aimed at, a fraction (default "
                                                 "0.01 when --steps is not given); the steps double from --steps until it "
                                                 "is met, or a line says why not");
    cmd->add_option("--max-steps", a->options.maxSteps, "integrated gradients with a tolerance: the most steps tried")
        ->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--quadrature", a->options.quadrature, "integrated gradients: trapezoid, midpoint or gauss-legendre")->capture_default_str();
    cmd->add_option("--baseline", a->baseline, "integrated gradients: black (the default), mean or an image FILE of the model's "
                                              "input size; with --text: unknown (the default: every source token's row the <unk> "
                                              "row) or zero");
    cmd->add_option("--samples", a->options.samples, "smoothgrad: noisy copies")->capture_default_str()->check(wholeNumberIn(0, 100000));
    cmd->add_option("--sigma", a->options.sigma, "smoothgrad: noise std in pixel units (0-1)")->capture_default_str();
    cmd->add_option("--seed", a->options.seed, "smoothgrad's noise")->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--out", a->out, "PNG of the map over the image")->check(writes(".png", "PNG"));
    cmd->add_flag("--json", a->json, "print the map as JSON (schema saccade.attribution; with --text saccade.seq-attribution)");
    cmd->add_flag("--pixels", a->pixels, "with --json on an image: add the map's magnitude per pixel (rows of the model's input)");
    addInputOptions(cmd, a->input);
    cmd->callback([a, cmd, &exitCode] {
        for (const char* text : {"--text", "--target-text"})
            if (cmd->count(text) && cmd->get_option(text)->as<std::string>().empty()) {
                exitCode = badInput("attribute", std::string(text) + " is empty: nothing to attribute");
                return;
            }
        a->stepsGiven = cmd->count("--steps") > 0;
        a->toleranceGiven = cmd->count("--tolerance") > 0;
        exitCode = runAttribute(*a);
    });
}

}  // namespace saccade::cli
