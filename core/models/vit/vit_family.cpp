// The Vision Transformer's registration: its training fields, trainer, network, loading and list
// line (models/model_family.h).
#include <algorithm>
#include <cstdlib>

#include "data/dataset.h"
#include "models/model_family.h"
#include "models/model_input.h"
#include "models/vit/vit_model.h"
#include "models/vit/vit_network.h"
#include "models/vit/vit_trainer.h"

namespace saccade {

namespace {

constexpr int kMaxFormPatch = 30;

std::vector<std::string> vitDatasets() {
    std::vector<std::string> out;
    for (const auto& [name, description] : datasetNames()) {
        const auto shape = datasetShape(name);
        if (shape && shape->channels == 1 && name.rfind("scenes", 0) != 0) out.push_back(name);
    }
    return out;
}

/// The form's patch side for an image side: 10 where it divides the side (6 x 6 patches on 60 px),
/// else the current one if it divides it and fits the form (at most kMaxFormPatch), else the
/// divisor nearest 8.
int fittingPatch(int side, int current) {
    if (side % 10 == 0) return 10;
    if (current > 0 && current <= std::min(side, kMaxFormPatch) && side % current == 0) return current;
    int best = 1;
    for (int d = 2; d <= std::min(side, kMaxFormPatch); ++d)
        if (side % d == 0 && std::abs(d - 8) < std::abs(best - 8)) best = d;
    return best;
}

std::vector<FamilyField> vitFields() {
    const VitTrainOptions d;
    const VitConfig c;
    return {
        integerField("patch", "Patch:", 1, 1024, c.patch,
                     "patch side in pixels (the image side must be a multiple; 10 gives 6 x 6 patches on 60 px)"),
        integerField("layers", "Layers:", 1, 48, c.layers,
                     "transformer layers: each is a step on the canvas (the CLS token's attention)"),
        cliOnly(integerField("dim", "Width:", 1, 4096, c.dim, "token width (a multiple of --heads)")),
        cliOnly(integerField("heads", "Heads:", 1, 64, c.heads, "attention heads per layer")),
        cliOnly(integerField("mlp", "MLP width:", 1, 16384, c.mlp, "hidden width of each layer's MLP")),
        cliOnly(realField("dropout", "Dropout:", 0, 0.99, c.dropout, "dropout after attention and MLP")),
        cliOnly(flagField("shifted-patches", "Shifted patches:",
                          "shifted patch tokens (Lee et al. 2021): each token also reads its patch shifted half a "
                          "patch in the four diagonal directions")),
        cliOnly(realField("weight-decay", "Weight decay:", 0, 10, d.weightDecay, "AdamW decoupled weight decay")),
        cliOnly(realField("label-smoothing", "Label smoothing:", 0, 0.99, d.labelSmoothing,
                          "share of the target spread over all classes")),
        cliOnly(flagField("shift", "Shift:",
                          "shift each training image by a random offset that keeps its object on the canvas (new "
                          "positions every epoch)")),
    };
}

/// The training options a request stands for.
VitTrainOptions vitOptions(const FamilyTrainRequest& r, SettingsReader& s) {
    VitTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    o.dataset = r.dataset;
    o.model.patch = int(s.integer("patch"));
    o.model.layers = int(s.integer("layers"));
    o.model.dim = int(s.integer("dim"));
    o.model.heads = int(s.integer("heads"));
    o.model.mlp = int(s.integer("mlp"));
    o.model.dropout = s.real("dropout");
    o.model.shiftedPatches = s.flag("shifted-patches");
    o.weightDecay = s.real("weight-decay");
    o.labelSmoothing = s.real("label-smoothing");
    o.shift = s.flag("shift");
    return o;
}

/// The ViT's attention layers on the first `count` test images of its dataset, or of the dataset
/// or image folder the request names (fitted to the model). It has no decoder.
Result<AttentionRecording> recordVitAttention(const std::string& path, const AttentionRecordRequest& r) {
    if (r.decoder) return Error{path + " is a vision transformer: its attention is the encoder's self-attention only"};
    auto model = VitModel::load(path, "cpu");
    if (!model) return Error{model.error()};
    const auto& info = (*model)->info();
    const std::string name = r.dataset.empty() ? info.dataset : r.dataset;
    auto dataset = openDatasetFor(**model, name, info.seed);
    if (!dataset) return Error{dataset.error()};
    AttentionRecording out;
    out.inputs.dataset = name;
    QkvCapture capture;
    for (std::int64_t i = 0; i < std::min(r.count, (*dataset)->size(Split::Test)); ++i) {
        const auto sample = (*dataset)->sample(Split::Test, i);
        if (auto t = (*model)->trace(sample.image, (*model)->deterministicRule(), 1, "test:" + std::to_string(i)); !t)
            return Error{t.error()};
    }
    out.layers = capture.layers();
    return out;
}

}  // namespace

ModelFamily vitFamily() {
    ModelFamily f({"vit", "Vision Transformer (self-attention)", "a vision transformer",
                   "A Vision Transformer: patches + CLS token, pre-norm self-attention layers; its traces show each "
                   "layer's CLS attention per head, the mean over heads, and attention rollout."},
                  FamilyOpeners::images(openWith<VitModel>()));
    f.datasets = vitDatasets;
    f.defaultDataset = VitTrainOptions{}.dataset;
    f.defaults = VitTrainOptions{};
    f.fields = vitFields();
    f.progress.evalSoft = "eval accuracy";
    f.progress.evalArgmax.clear();
    f.progress.evalSample.clear();
    f.progress.entropy = false;
    setTrainer(f, vitOptions, trainVitModel);
    f.progressLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"acc", p.trainAccuracy}}, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) { return figureLine({{"accuracy", p.evalSoft}}); };
    f.fitToDataset = [](FamilySettings& s, const std::string& dataset) {
        if (const auto shape = datasetShape(dataset))
            s["patch"] = std::to_string(fittingPatch(shape->width, int(intSetting(s, "patch"))));
    };
    f.network = networkWith(vitConfigFromJson, [](const VitConfig& c) { return VitNetwork(c).ptr(); });
    f.recordAttentionInputs = recordVitAttention;
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = vitConfigFromJson(config);
        return c ? "ViT, " + std::to_string(c->layers) + " layers x " + std::to_string(c->heads) + " heads" +
                       (c->shiftedPatches ? ", shifted patches, " : ", ") + dataset
                 : dataset;
    };
    return f;
}

}  // namespace saccade
