// saccade-cli adversarial: how far a soft-attention model's attention can move without changing
// its answer (Jain and Wallace 2019; analysis/adversarial_attention.h), on one image or over a
// test split, with the learned and the adversarial maps drawn one above the other.

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/runs/adversarial_attention.h"
#include "commands.h"
#include "input_options.h"
#include "common/parse.h"
#include "data/image_io.h"
#include "models/gradient_forward.h"
#include "models/model_input.h"
#include "render/trace_render.h"
#include "run_input.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

constexpr int kAdversarialGap = 6;  // pixels between the learned and the adversarial strip

struct AdversarialArgs {
    std::string model, image, sample, dataset, device = "auto", out;
    std::int64_t limit = 200;
    AdversarialOptions options;
    bool json = false, limitGiven = false;
};

// One strip's trace: each attention step's map, the output it gives, the image's label.
Trace adversarialMapTrace(const std::vector<std::vector<double>>& maps, const std::vector<double>& probs, int rows, int cols,
               const std::string& name, const Image& image, const AdversarialImage& r,
               const std::vector<std::string>& classes) {
    Trace t;
    t.modelId = name;
    t.imageId = r.id;
    t.rule = name;
    t.imageWidth = image.width;
    t.imageHeight = image.height;
    t.classNames = classes;
    for (const auto& cells : maps) {
        TraceStep step;
        step.grid = GridDistribution{rows, cols, std::vector<float>(cells.begin(), cells.end())};
        step.entropy = entropyNats(step.grid->probs);
        step.outputProbs.assign(probs.begin(), probs.end());
        t.steps.push_back(std::move(step));
    }
    t.output.probs.assign(probs.begin(), probs.end());
    t.output.label = int(std::max_element(probs.begin(), probs.end()) - probs.begin());
    if (r.label) {
        GroundTruth truth;
        truth.label = *r.label;
        t.groundTruth = truth;
    }
    return t;
}

// The two strips, learned above adversarial, on one white canvas.
Image stackAdversarialStrips(const Image& top, const Image& bottom) {
    Image out = Image::zeros(std::max(top.width, bottom.width), top.height + kAdversarialGap + bottom.height, 3);
    std::fill(out.pixels.begin(), out.pixels.end(), std::uint8_t(255));
    auto paste = [&out](const Image& im, int y0) {
        for (int y = 0; y < im.height; ++y)
            for (int x = 0; x < im.width; ++x)
                for (int c = 0; c < 3; ++c) out.at(x, y0 + y, c) = im.at(x, y, c);
    };
    paste(top, 0);
    paste(bottom, top.height + kAdversarialGap);
    return out;
}

std::string adversarialFigure(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

Result<Unit> writeAdversarialPair(const AdversarialReport& report, const AdversarialImage& r, const Image& image,
                       const std::vector<std::string>& classes, const std::string& path) {
    RenderOptions ro;
    ro.chosen = false;
    ro.path = false;
    ro.stepNumbers = false;
    ro.caption = r.id + ", learned soft attention (" + report.model + ")";
    const auto learned = renderTraceStrip(
        image, adversarialMapTrace(r.learned, r.outputProbs, report.rows, report.cols, "learned", image, r, classes), ro);
    ro.caption = "adversarial attention: JS " + adversarialFigure(r.js, 3) + " of ln 2 = " + adversarialFigure(report.jsMax, 3) +
                 ", output TV " + adversarialFigure(r.tv, 4) + " (epsilon " + adversarialFigure(report.options.epsilon, 4) + "), prediction " +
                 (r.predictionChanged ? "changed" : "kept");
    const auto adversarial = renderTraceStrip(
        image, adversarialMapTrace(r.adversarial, r.adversarialProbs, report.rows, report.cols, "adversarial", image, r, classes), ro);
    return saveImagePng(stackAdversarialStrips(learned, adversarial), path);
}

std::string adversarialClass(int index, const std::vector<std::string>& classes) {
    return index >= 0 && index < int(classes.size()) ? classes[size_t(index)] : "class " + std::to_string(index);
}

void printAdversarial(const AdversarialReport& r, const std::vector<std::string>& classes) {
    const auto& o = r.options;
    std::cout << std::fixed << std::setprecision(3) << "adversarial attention of the " << r.model << " (" << r.rule
              << " rule): epsilon " << std::setprecision(4) << o.epsilon << ", " << o.steps << " steps x " << o.restarts
              << " start(s), seed " << o.seed << "\n";
    if (r.images.size() == 1 || r.dataset.empty()) {
        for (const auto& i : r.images)
            std::cout << std::setprecision(3) << "  " << i.id << ": JS " << i.js << " of ln 2 = " << r.jsMax << " ("
                      << std::setprecision(1) << 100 * i.js / r.jsMax << "%), output TV " << std::setprecision(4) << i.tv
                      << ", prediction " << (i.predictionChanged ? "changed (" + adversarialClass(i.predicted, classes) + " -> " +
                                                                       adversarialClass(i.adversarialPredicted, classes) + ")"
                                                                 : "kept (" + adversarialClass(i.predicted, classes) + ")")
                      << "\n";
    }
    if (!r.dataset.empty() && r.jsMedian)
        std::cout << std::setprecision(3) << r.dataset << " test split, " << r.images.size() << " images: JS median "
                  << *r.jsMedian << ", mean " << *r.jsMean << " (of ln 2 = " << r.jsMax << "); "
                  << std::setprecision(1) << 100 * *r.shareAboveHalf << "% of the images reach JS > 0.5 ln 2 with the "
                  << "output within TV " << std::setprecision(4) << o.epsilon << " (TV mean " << *r.tvMean << ", max "
                  << *r.tvMax << "); predictions changed: " << r.predictionsChanged << " of " << r.images.size() << "\n";
    std::cout << std::setprecision(1) << "  " << r.seconds << " s\n";
}

// The image behind a result, for the picture: the sample, the file, or the split's image.
Result<Unit> drawAdversarial(AttentionModel& model, const AdversarialArgs& a, const AdversarialReport& report,
                        const Image& single) {
    if (report.images.empty()) return Unit{};
    const auto farthest = std::max_element(report.images.begin(), report.images.end(),
                                           [](const auto& x, const auto& y) { return x.js < y.js; });
    Image image = single;
    if (!a.dataset.empty()) {
        auto d = openDatasetFor(model, a.dataset, model.info().seed);
        if (!d) return Error{d.error()};
        image = (*d)->sample(Split::Test, std::int64_t(farthest->index)).image;
    }
    return writeAdversarialPair(report, *farthest, image, model.classNames(), a.out);
}

Result<AdversarialReport> searchAdversarial(AttentionModel& model, const AdversarialArgs& a, Image& single) {
    if (!a.dataset.empty()) {
        auto d = openDatasetFor(model, a.dataset, model.info().seed);
        if (!d) return Error{d.error()};
        return adversarialAttentionOnSplit(model, **d, Split::Test, a.limit, a.options, consoleProgress("adversarial"));
    }
    auto input = resolveInput(model, a.image, a.sample);
    if (!input) return Error{input.error()};
    single = input->image;
    std::uint64_t index = 0;
    if (!a.sample.empty()) index = std::uint64_t(parseSampleRef(a.sample)->index);
    std::optional<int> label;
    if (input->truth && input->truth->label >= 0) label = input->truth->label;
    return adversarialAttention(model, {{input->image, input->id, label, index}}, a.options);
}

int runAdversarial(const AdversarialArgs& a) {
    if (auto ok = checkAdversarialOptions(a.options); !ok) return badInput("adversarial", ok.error());
    const int given = int(!a.image.empty()) + int(!a.sample.empty()) + int(!a.dataset.empty());
    if (given != 1) return badInput("adversarial", "give exactly one of --image FILE, --sample DATASET:INDEX and --dataset NAME");
    if (a.limitGiven && a.dataset.empty()) return badInput("adversarial", "--limit goes with --dataset");
    auto model = loadModelWith(a.model, a.device, InputOptions{});
    if (!model) return badInput("adversarial", model.error());
    GradientForward* forward = (*model)->gradientForward();
    if (!forward || !forward->hasAttentionHead())
        return badInput("adversarial", (*model)->displayName() + " has no soft attention to replace");
    Image single;
    auto report = searchAdversarial(**model, a, single);
    if (!report) return badInput("adversarial", report.error());
    if (!a.out.empty())
        if (auto drawn = drawAdversarial(**model, a, *report, single); !drawn) {
            sayFailure("adversarial", drawn.error());
            return kExitFailure;
        }
    if (a.json)
        std::cout << adversarialToJson(*report, a.dataset.empty()) << "\n";
    else
        printAdversarial(*report, (*model)->classNames());
    if (!a.out.empty() && !a.json) std::cout << "wrote " << a.out << "\n";
    return 0;
}

}  // namespace

void addAdversarialCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<AdversarialArgs>();
    auto* cmd = app.add_subcommand(
        "adversarial", "How far soft attention can move without changing the answer (Jain and Wallace 2019): the "
                       "attention farthest from the learned one (Jensen-Shannon) whose output stays within a total "
                       "variation of epsilon, per image or over a test split.");
    cmd->add_option("--model", a->model, "checkpoint (.pt) of a model with soft attention over cells")->required();
    cmd->add_option("--image", a->image, "image file (fitted to the model's input)");
    cmd->add_option("--sample", a->sample, "test sample DATASET:INDEX");
    cmd->add_option("--dataset", a->dataset, "search the first --limit images of this dataset's test split");
    auto* limit = cmd->add_option("--limit", a->limit, "test images with --dataset")->capture_default_str()->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--epsilon", a->options.epsilon, "largest total variation between the outputs, in (0, 1)")
        ->capture_default_str();
    cmd->add_option("--steps", a->options.steps, "Adam steps per start")->capture_default_str()->check(wholeNumberIn(0, 1000000));
    cmd->add_option("--restarts", a->options.restarts, "seeded starts per image, the farthest kept")
        ->capture_default_str()->check(wholeNumberIn(0, 1000));
    cmd->add_option("--seed", a->options.seed, "the starts' noise (image i of a split: seed + i)")->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--out", a->out, "PNG of the learned and the adversarial maps (with --dataset: the farthest image)")
        ->check(writes(".png", "PNG"));
    cmd->add_flag("--json", a->json, "print the result as JSON (schema saccade.adversarial_attention; a split's "
                                     "without the per-image maps)");
    cmd->callback([a, limit, &exitCode] {
        a->limitGiven = limit->count() > 0;
        exitCode = runAdversarial(*a);
    });
}

}  // namespace saccade::cli
