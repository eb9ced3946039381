// The Recurrent Attention Model's registration: its training fields, trainer, network, loading
// and list line (models/model_family.h).

#include "data/dataset.h"
#include "models/model_family.h"
#include "models/ram/ram_cost.h"
#include "models/ram/ram_model.h"
#include "models/ram/ram_network.h"
#include "models/ram/ram_trainer.h"

namespace saccade {

namespace {

std::vector<std::string> ramDatasets() {
    std::vector<std::string> out;
    for (const auto& [name, description] : datasetNames()) {
        const auto shape = datasetShape(name);
        if (shape && shape->channels == 1 && name.rfind("scenes", 0) != 0) out.push_back(name);
    }
    return out;
}

std::vector<FamilyField> ramFields() {
    const RamTrainOptions d;
    FamilyField glimpses = integerField("glimpses", "Glimpses:", 1, 64, d.model.glimpses, "glimpses T per episode");
    return {
        glimpses,
        cliOnly(optionalIntegerField("glimpse-size", "Glimpse size:", 2, 512,
                                     "g (default: 8 for 28x28, 12 for 60 and 100)")),
        cliOnly(optionalIntegerField("scales", "Scales:", 1, 8, "k patches per glimpse (default: 1 for 28x28, 3 for 60, 4 for 100)")),
        cliOnly(integerField("scale-factor", "Scale factor:", 1, 4, d.model.scaleFactor, "s: each patch s times wider")),
        cliOnly(choiceField("core", "Core:", {"rnn", "lstm"}, d.model.core, "rnn (ReLU) or lstm")),
        cliOnly(realField("std", "Location std:", 1e-4, 2, d.model.locationStd,
                          "standard deviation of the location policy ([-1, 1] units)")),
        cliOnly(integerField("hidden", "Hidden:", 1, 8192, d.model.hidden, "core state size")),
        cliOnly(integerField("replicas", "Replicas:", 1, 1024, d.replicas, "M: Monte-Carlo replicas of each image per batch")),
        cliOnly(flagField("fixed-canvases", "Fixed canvases:",
                          "every pass sees the same canvases (default: each pass places the items anew, with new "
                          "distractors)")),
    };
}

/// The training options a request stands for.
RamTrainOptions ramOptions(const FamilyTrainRequest& r, SettingsReader& s) {
    RamTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    o.dataset = r.dataset;
    o.model.glimpses = int(s.integer("glimpses"));
    if (auto size = s.optionalInteger("glimpse-size")) o.model.glimpseSize = int(*size);
    if (auto scales = s.optionalInteger("scales")) o.model.scales = int(*scales);
    o.model.scaleFactor = int(s.integer("scale-factor"));
    o.model.core = s.text("core");
    o.model.locationStd = s.real("std");
    o.model.hidden = int(s.integer("hidden"));
    o.model.glimpseDim = o.model.hidden;
    o.replicas = int(s.integer("replicas"));
    o.freshCanvases = !s.flag("fixed-canvases");
    return o;
}

}  // namespace

ModelFamily ramFamily() {
    ModelFamily f({"ram", "recurrent attention model", "a recurrent attention model",
                   "The Recurrent Attention Model: Gaussian glimpse locations trained with REINFORCE and a learned "
                   "baseline, classifier by cross-entropy (the hybrid loss)."},
                  FamilyOpeners::images(openWith<RamModel>()));
    f.datasets = ramDatasets;
    f.defaultDataset = RamTrainOptions{}.dataset;
    f.defaults = RamTrainOptions{};
    f.fields = ramFields();
    f.progress.evalSoft = "eval random glimpses";
    f.progress.evalArgmax = "eval mean";
    f.progress.reward = true;
    setTrainer(f, ramOptions, trainRamModel);
    f.progressLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"reward", p.reward}, {"baseline", p.baseline}}, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"mean", p.evalArgmax}, {"sample", p.evalSample}, {"random glimpses", p.evalSoft}});
    };
    f.network = networkWith(ramConfigFromJson, [](const RamConfig& c) { return RamNetwork(c).ptr(); });
    f.cost = ramCost;
    f.costTimedRules = 3;  // 3 rules
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = ramConfigFromJson(config);
        return c ? "RAM, " + std::to_string(c->glimpses) + " glimpses, " + dataset : dataset;
    };
    return f;
}

}  // namespace saccade
