// The Show-Attend-Tell captioner's registration: its training fields, trainer, network, loading
// and list line (models/model_family.h).
#include "data/dataset.h"
#include "models/caption/caption_model.h"
#include "models/caption/caption_network.h"
#include "models/caption/caption_trainer.h"
#include "models/model_family.h"
#include "models/caption/caption_cost.h"

namespace saccade {

namespace {

std::vector<std::string> captionDatasets() {
    std::vector<std::string> out;
    for (const auto& [name, description] : datasetNames())
        if (name.rfind("scenes", 0) == 0 && datasetShape(name)) out.push_back(name);
    return out;
}

std::vector<FamilyField> captionFields() {
    const CaptionTrainOptions d;
    const CaptionConfig c;
    return {
        choiceField("mode", "Mode:", attentionTrainingModeNames(), trainingModeName(c.mode),
                    "soft: backprop through the expected context; hard: REINFORCE with a baseline; gumbel: "
                    "straight-through Gumbel-softmax"),
        choiceField("scorer", "Scorer:", {"additive", "general", "dot", "scaled-dot"}, c.scorer,
                    "how an annotation is scored against the LSTM state"),
        integerField("grid", "Grid g:", 1, 64, c.grid, "annotation cells per side (image size / grid: 1, 2, 4 or 8)"),
        cliOnly(integerField("feature-dim", "Features:", 1, 4096, c.featureDim, "D: annotation vector size")),
        cliOnly(integerField("hidden", "Hidden:", 1, 8192, c.hidden, "LSTM state size")),
        cliOnly(integerField("embed", "Embedding:", 1, 4096, c.embed, "word embedding size")),
        cliOnly(integerField("attn-hidden", "Scorer width:", 1, 4096, c.attnHidden, "additive scorer width")),
        cliOnly(choiceField("encoder", "Encoder:", {"local", "wide"}, c.encoder,
                            "local: a cell sees 14 px, so naming an object needs attention on it; wide: about 40 px, "
                            "so a word can be read beside its object")),
        cliOnly(flagField("cell-positions", "Cell positions:",
                          "add a learned vector per cell to its features, so a context read from one cell says where "
                          "it was")),
        cliOnly(realField("dropout", "Dropout:", 0, 0.99, c.dropout, "before the deep output layer")),
        cliOnly(integerField("max-length", "Longest caption:", 0, 64, d.model.maxLength,
                             "longest caption in tokens with <start> and <end> (0: the dataset's longest)")),
        only(realField("dsr-lambda", "DSR lambda:", 0, 100, d.dsrLambda,
                       "soft: doubly stochastic regulariser weight (0 with Sharpen: it pulls words off their objects)"),
             "mode", {"soft"}),
        only(realField("attention-entropy", "Sharpen:", 0, 100, d.attentionEntropy,
                       "soft: weight of each word's attention entropy in the loss (0: the paper's soft attention). "
                       "0.02 with DSR lambda 0 puts two thirds of a word's attention on the object it names"),
             "mode", {"soft"}),
        only(cliOnly(integerField("attention-entropy-warmup", "Sharpen warm-up:", 0, 1000000000,
                                  d.attentionEntropyWarmup,
                                  "soft: iterations over which the attention entropy weight ramps up from 0 (0: none)")),
             "mode", {"soft"}),
        only(cliOnly(realField("entropy-bonus", "Entropy bonus:", 0, 10, d.entropyBonus, "hard: entropy bonus")),
             "mode", {"hard"}),
        only(cliOnly(realField("expectation-mix", "Expectation mix:", 0, 1, d.expectationMix,
                               "hard: probability of using the expected context for a caption")),
             "mode", {"hard"}),
        only(cliOnly(realField("gumbel-rate", "Gumbel rate:", 0, 1, d.gumbelRate, "gumbel: r in tau = max(0.5, exp(-r t))")),
             "mode", {"gumbel"}),
        cliOnly(startFromField("init-from", "Start from:",
                          "start from this captioner's weights (same architecture, any mode) with a fresh optimizer: "
                          "e.g. fine-tune a soft captioner with REINFORCE")),
    };
}

/// The training options a request stands for.
CaptionTrainOptions captionOptions(const FamilyTrainRequest& r, SettingsReader& s) {
    CaptionTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    o.dataset = r.dataset;
    o.model.mode = s.attentionMode("mode");
    o.model.scorer = s.text("scorer");
    o.model.grid = int(s.integer("grid"));
    o.model.featureDim = int(s.integer("feature-dim"));
    o.model.hidden = int(s.integer("hidden"));
    o.model.embed = int(s.integer("embed"));
    o.model.attnHidden = int(s.integer("attn-hidden"));
    o.model.encoder = s.text("encoder");
    o.model.cellPositions = s.flag("cell-positions");
    o.model.dropout = s.real("dropout");
    o.model.maxLength = int(s.integer("max-length"));
    o.dsrLambda = s.real("dsr-lambda");
    o.attentionEntropy = s.real("attention-entropy");
    o.attentionEntropyWarmup = s.integer("attention-entropy-warmup");
    o.entropyBonus = s.real("entropy-bonus");
    o.expectationMix = s.real("expectation-mix");
    o.gumbelRate = s.real("gumbel-rate");
    o.initFrom = s.text("init-from");
    return o;
}

}  // namespace

ModelFamily captionFamily() {
    ModelFamily f({"caption", "Show-Attend-Tell captioner", "a captioner",
                   "The Show-Attend-Tell captioner on captioned scenes: a CNN grid of annotations, an LSTM that looks "
                   "once per word (soft, hard REINFORCE or gumbel attention) and a deep output layer."},
                  FamilyOpeners::images(openWith<CaptionModel>()));
    f.datasets = captionDatasets;
    f.defaultDataset = CaptionTrainOptions{}.dataset;
    f.defaults = CaptionTrainOptions{};
    f.fields = captionFields();
    f.progress.evalSoft = "exact soft";
    f.progress.evalArgmax = "exact argmax";
    f.progress.evalSample = "exact sample";
    f.progress.trainAccuracy = "word acc.";
    f.progress.accuracyAxis = "exact match, BLEU-4, mass";
    f.progress.bleuAndMass = true;
    f.reinforced = [](const FamilySettings& s) { return attentionModeSetting(s, "mode") == TrainingMode::Hard; };
    f.fileTagKey = "mode";
    setTrainer(f, captionOptions, trainCaptionModel);
    f.progressLine = [](const TrainProgress& p, const FamilySettings& s) {
        std::vector<std::pair<std::string, double>> figures;
        if (attentionModeSetting(s, "mode") == TrainingMode::Hard) figures = {{"reward", p.reward}, {"baseline", p.baseline}};
        if (attentionModeSetting(s, "mode") == TrainingMode::Gumbel) figures = {{"tau", p.temperature}};
        figures.insert(figures.end(), {{"H", p.entropy}, {"word acc", p.trainAccuracy}});
        return figureLine(figures, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"exact soft", p.evalSoft}, {"argmax", p.evalArgmax}, {"sample", p.evalSample},
                           {"BLEU-4", p.evalBleu4}, {"mass on object", p.evalAttention}});
    };
    f.network = networkWith(captionConfigFromJson, [](const CaptionConfig& c) { return CaptionNetwork(c).ptr(); });
    f.cost = captionCost;
    f.costTimedRules = 3;  // 3 rules
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = captionConfigFromJson(config);
        return c ? "captioner, " + trainingModeName(c->mode) + " attention, up to " + std::to_string(c->maxLength) + " words, " + dataset
                 : dataset;
    };
    return f;
}

}  // namespace saccade
