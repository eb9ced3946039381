// saccade-cli faithfulness: does attention mean what it seems to? Mass in the box and the
// pointing game per step, deletion curves (most attended against random cells), rank agreement
// with occlusion saliency, and the calibration of attention as the probability of the object.

#include <iomanip>
#include <iostream>
#include <memory>

#include "analysis/attribution/caption_faithfulness.h"
#include "models/translator.h"
#include "analysis/attribution/faithfulness.h"
#include "commands.h"
#include "input_options.h"
#include "map_faithfulness.h"
#include "models/model_input.h"
#include "shard_option.h"
#include "strict_options.h"
#include "data/dataset.h"
#include "run_input.h"

namespace saccade::cli {

namespace {

struct FaithfulnessArgs {
    std::string model, dataset, device = "auto", shard;
    InputOptions input;
    FaithfulnessOptions options;
    MapFaithfulnessArgs maps;
    bool json = false;
};

// A captioner: per object word, the mass on its object and whether the word survives occluding
// the cells it looked at.
int runCaptionFaithfulness(const FaithfulnessArgs& a, AttentionModel& model, const Dataset& dataset) {
    CaptionFaithfulnessOptions o;
    o.limit = a.options.limit;
    o.seed = a.options.seed;
    o.rule = a.options.rule;
    o.fractions = {0.0, 0.05, 0.1, 0.2, 0.3};
    auto shard = shardOf(a.shard);
    if (!shard) return badInput("faithfulness", shard.error());
    o.shard = *shard;
    auto r = measureCaptionFaithfulness(model, dataset, Split::Test, o, consoleProgress("faithfulness"));
    if (!r) return badInput("faithfulness", r.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {dataset.info().name, std::to_string(a.options.limit),
                                                    std::to_string(a.options.seed), a.options.rule});
        if (!fingerprint) return badInput("faithfulness", fingerprint.error());
        r.value().fingerprint = *fingerprint;
    }
    if (a.json || shard->active()) {
        std::cout << captionFaithfulnessToJson(*r) << "\n";
        return 0;
    }
    std::cout << std::fixed << std::setprecision(1) << r->dataset << " test split, " << r->images << " scenes, "
              << r->words << " object words, " << r->rule << " rule, attention on a " << r->rows << "x" << r->cols
              << " grid, " << r->seconds << " s\n  " << kAttentionCaveat << "\n  attention on the named object at its word: "
              << 100 * r->massOnObject << "% (uniform attention: " << 100 * r->uniformMass << "%)\n"
              << "  cells occluded   word still in the caption (its most attended cells / random cells)\n";
    for (const auto& d : r->deletion)
        std::cout << "  " << std::setw(13) << 100 * d.fraction << "%   " << std::setw(10) << 100 * d.keptAttended << "% / "
                  << 100 * d.keptRandom << "%\n";
    return 0;
}

// The text report; a figure that was not measured (no boxes, no ranks) says so instead of 0.
void printFaithfulness(const FaithfulnessReport& r) {
    std::cout << std::fixed << std::setprecision(1) << r.dataset << " test split, " << r.images << " images ("
              << r.boxed << " with a box), " << r.rule << " rule, attention on a " << r.rows << "x" << r.cols
              << " grid, " << r.seconds << " s\n  " << kAttentionCaveat << "\n";
    if (r.boxed == 0) {
        std::cout << "  mass in box, pointing game and calibration: not measured (no image has a box)\n";
    } else {
        std::cout << "  step   mass in box   pointing game\n";
        for (size_t k = 0; k < r.massPerStep.size(); ++k)
            std::cout << "  " << std::setw(4) << k + 1 << "   " << std::setw(10) << 100 * r.massPerStep[k] << "%   "
                      << std::setw(12) << 100 * r.pointingPerStep[k] << "%\n";
        std::cout << "  (uniform attention would put " << 100 * r.uniformMass.value_or(0) << "% in the box)\n";
    }
    std::cout << "  deletion: removed   accuracy (attended / random)   TV distance (attended / random)\n";
    for (const auto& d : r.deletion)
        std::cout << "  " << std::setw(15) << 100 * d.fraction << "%   " << std::setw(10) << 100 * d.accuracyAttention
                  << "% / " << std::setw(5) << 100 * d.accuracyRandom << "%   " << std::setprecision(3) << std::setw(16)
                  << d.tvAttention << " / " << d.tvRandom << std::setprecision(1) << "\n";
    std::cout << std::setprecision(3) << "  rank correlation with occlusion saliency (Spearman, " << r.correlationImages
              << " images): ";
    if (r.rankCorrelation)
        std::cout << *r.rankCorrelation << "\n";
    else
        std::cout << "not measured (no image had a map with ranks on both sides)\n";
    if (!r.expectedCalibrationError) return;
    std::cout << "  calibration (attention as the probability a cell lies on the object), ECE "
              << *r.expectedCalibrationError << ":\n      bin        cells   mean attention   on object\n";
    for (const auto& b : r.reliability)
        if (b.count)
            std::cout << "  " << std::setprecision(1) << b.low << "-" << b.high << std::setw(12) << b.count << std::setprecision(3)
                      << std::setw(15) << b.meanAttention << std::setw(12) << b.onObject << "\n";
}

// A sequence model: the maps table over its task's test split, no images.
int runSeqFaithfulness(const FaithfulnessArgs& a, const CLI::App& cmd) {
    for (const char* image : {"--dataset", "--saliency-images", "--curve-points", "--shard"})
        if (cmd.count(image)) return badInput("faithfulness", std::string(image) + " is for image models; " + a.model + " reads text");
    SeqMapFaithfulnessArgs s;
    s.model = a.model;
    s.device = a.device;
    s.methods = a.maps.methods;
    s.rule = a.options.rule;
    s.limit = a.options.limit;
    s.sanitySentences = a.maps.sanityImages;  // sentences here
    s.seed = a.options.seed;
    s.json = a.json;
    return runSeqMapFaithfulness(s);
}

int runFaithfulness(const FaithfulnessArgs& a, const CLI::App& cmd) {
    if (fileReadsText(a.model)) return runSeqFaithfulness(a, cmd);
    const int mode = mapFaithfulnessMode(cmd, a.maps);
    if (mode > 0) return mode;
    auto model = loadModelWith(a.model, a.device, a.input);
    if (!model) return badInput("faithfulness", model.error());
    auto dataset = openDatasetFor(**model, a.dataset.empty() ? (*model)->info().dataset : a.dataset, 1);
    if (!dataset) return badInput("faithfulness", dataset.error());
    if (mode < 0)
        return runMapFaithfulness(a.maps, **model, **dataset, a.options.limit, a.options.seed, a.options.rule, a.json);
    if (traitsOf((*model)->outputKind()).wordSteps) return runCaptionFaithfulness(a, **model, **dataset);
    auto options = a.options;
    auto shard = shardOf(a.shard);
    if (!shard) return badInput("faithfulness", shard.error());
    options.shard = *shard;
    auto r = measureFaithfulness(**model, **dataset, Split::Test, options, consoleProgress("faithfulness"));
    if (!r) return badInput("faithfulness", r.error());
    if (shard->active()) {
        auto fingerprint = runFingerprint(a.model, {(*dataset)->info().name, std::to_string(a.options.limit),
                                                    std::to_string(a.options.saliencyImages), std::to_string(a.options.seed),
                                                    a.options.rule});
        if (!fingerprint) return badInput("faithfulness", fingerprint.error());
        r.value().fingerprint = *fingerprint;
    }
    if (a.json || shard->active()) {
        std::cout << faithfulnessToJson(*r) << "\n";
        return 0;
    }
    printFaithfulness(*r);
    return 0;
}

}  // namespace

void addFaithfulnessCommand(CLI::App& app, int& exitCode) {
    auto a = std::make_shared<FaithfulnessArgs>();
    auto* cmd = app.add_subcommand(
        "faithfulness", "Does attention mean what it seems to? Mass in the box and the pointing game per step, "
                        "deletion curves (most attended against random cells), rank correlation with occlusion "
                        "saliency, and the calibration of attention as the probability of the object. On a "
                        "captioner, word by word: the mass on the object each word names, and whether the word "
                        "survives occluding the cells it looked at. With --methods, attention, rollout and "
                        "attribution maps side by side: mass in box, pointing game, deletion and insertion AUC and "
                        "the model-randomisation sanity check; on a captioner, per object word, the attention at its step and "
                        "each map of the word: mass on the named object and pointing game; on a sequence model, each "
                        "map's AER against the gold alignment and the fall of the word's probability when its top "
                        "source token is removed, and the sanity check on its first sentences.");
    cmd->add_option("--model", a->model, "checkpoint (.pt)")->required();
    cmd->add_option("--dataset", a->dataset, "test split to measure on (default: the model's dataset)");
    cmd->add_option("--limit", a->options.limit, "test images")->capture_default_str()->check(wholeNumberIn(1, 1000000000));
    cmd->add_option("--saliency-images", a->options.saliencyImages,
                    "images for the saliency correlation (each cell occluded alone)")->capture_default_str()->check(wholeNumberIn(0, 1000000));
    cmd->add_option("--seed", a->options.seed, "seed of the random deletion order")->capture_default_str();
    cmd->add_option("--rule", a->options.rule,
                    "whose maps to measure (default: the model's deterministic rule); transformers: attention, "
                    "rollout or head:K, one step per layer");
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", a->json, "print the report as JSON (schema saccade.faithfulness)");
    addMapFaithfulnessOptions(cmd, a->maps);
    addShardOption(cmd, a->shard);
    addInputOptions(cmd, a->input);
    cmd->callback([a, cmd, &exitCode] { exitCode = runFaithfulness(*a, *cmd); });
}

}  // namespace saccade::cli
