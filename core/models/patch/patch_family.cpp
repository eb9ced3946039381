// The patch-attention classifier's registration: its training fields, trainer, network, loading
// and list line (models/model_family.h).
#include "data/dataset.h"
#include "models/model_family.h"
#include "models/patch/patch_cost.h"
#include "models/patch/patch_classifier.h"
#include "models/patch/patch_model.h"
#include "models/patch/patch_trainer.h"

namespace saccade {

namespace {

// Greyscale sets whose side the encoder can halve twice.
std::vector<std::string> patchDatasets() {
    std::vector<std::string> out;
    for (const auto& [name, description] : datasetNames()) {
        const auto shape = datasetShape(name);
        if (shape && shape->channels == 1 && shape->width % 4 == 0 && name.rfind("scenes", 0) != 0) out.push_back(name);
    }
    return out;
}

std::vector<FamilyField> patchFields() {
    const PatchTrainOptions d;
    return {
        choiceField("mode", "Mode:", attentionTrainingModeNames(), trainingModeName(d.model.mode),
                    "soft: backprop through the expected context; hard: REINFORCE with a baseline; gumbel: "
                    "straight-through Gumbel-softmax"),
        choiceField("scorer", "Scorer:", {"additive", "general", "dot", "scaled-dot"}, d.model.scorer,
                    "how a cell is scored against the LSTM state"),
        choiceField("variant", "Variant:", {"dense", "select"}, d.model.variant,
                    "dense (every cell's features computed, then selected) or select (a cheap low-resolution pass "
                    "scores the cells; the patch network runs on the chosen cell only)"),
        integerField("steps", "Steps T:", 1, 64, d.model.steps, "attention steps T"),
        integerField("grid", "Grid g:", 2, 64, d.model.grid, "cells per side (image size / grid / 2 must be whole)"),
        only(cliOnly(realField("entropy-bonus", "Entropy bonus:", 0, 10, d.entropyBonus, "hard: entropy bonus")),
             "mode", {"hard"}),
        only(cliOnly(realField("dsr-lambda", "DSR lambda:", 0, 100, d.dsrLambda,
                               "soft: doubly stochastic regulariser weight (off by default: with T steps over L >> T "
                               "cells it pulls attention toward uniform)")),
             "mode", {"soft"}),
        only(cliOnly(realField("gumbel-rate", "Gumbel rate:", 0, 1, d.gumbelRate,
                               "gumbel: r in tau = max(0.5, exp(-r t))")),
             "mode", {"gumbel"}),
        cliOnly(startFromField("init-from", "Start from:",
                          "start from this checkpoint's weights (same architecture, any mode), with a fresh optimizer "
                          "and schedule: e.g. fine-tune a soft model with REINFORCE")),
    };
}

/// The training options a request stands for.
PatchTrainOptions patchOptions(const FamilyTrainRequest& r, SettingsReader& s) {
    PatchTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    o.dataset = r.dataset;
    o.model.mode = s.attentionMode("mode");
    o.model.scorer = s.text("scorer");
    o.model.variant = s.text("variant");
    o.model.steps = int(s.integer("steps"));
    o.model.grid = int(s.integer("grid"));
    o.entropyBonus = s.real("entropy-bonus");
    o.dsrLambda = s.real("dsr-lambda");
    o.gumbelRate = s.real("gumbel-rate");
    o.initFrom = s.text("init-from");
    return o;
}

}  // namespace

ModelFamily patchFamily() {
    ModelFamily f({"patch", "patch-attention classifier", "a patch classifier",
                   "The patch-attention classifier: soft, hard (REINFORCE) or gumbel attention over a grid of CNN "
                   "cell features, read by an LSTM for --steps steps."},
                  FamilyOpeners::images(openWith<PatchModel>()));
    f.datasets = patchDatasets;
    f.defaultDataset = PatchTrainOptions{}.dataset;
    f.defaults = PatchTrainOptions{};
    f.fields = patchFields();
    f.reinforced = [](const FamilySettings& s) { return attentionModeSetting(s, "mode") == TrainingMode::Hard; };
    f.fileTagKey = "mode";
    setTrainer(f, patchOptions, trainPatchModel);
    f.progressLine = [](const TrainProgress& p, const FamilySettings& s) {
        std::vector<std::pair<std::string, double>> figures;
        if (attentionModeSetting(s, "mode") == TrainingMode::Hard) figures = {{"reward", p.reward}, {"baseline", p.baseline}};
        if (attentionModeSetting(s, "mode") == TrainingMode::Gumbel) figures = {{"tau", p.temperature}};
        figures.insert(figures.end(), {{"H", p.entropy}, {"acc", p.trainAccuracy}});
        return figureLine(figures, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"soft", p.evalSoft}, {"argmax", p.evalArgmax}, {"sample", p.evalSample}});
    };
    f.network = networkWith(patchConfigFromJson, [](const PatchConfig& c) { return PatchClassifier(c).ptr(); });
    f.cost = patchCost;
    f.costTimedRules = 8;  // 2 variants x 4 rules
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = patchConfigFromJson(config);
        return c ? trainingModeName(c->mode) + " attention, " + std::to_string(c->steps) + " steps, " + dataset : dataset;
    };
    return f;
}

}  // namespace saccade
