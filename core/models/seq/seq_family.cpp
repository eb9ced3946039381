// The sequence models' registration (an attentive RNN encoder-decoder or a Transformer on a task
// whose alignment is known): training fields, trainer, network and list line
// (models/model_family.h). They read text, so they open on the Sequences page, not as image models.

#include "data/seq_task.h"
#include "models/model_family.h"
#include "models/seq/seq_model.h"
#include "models/seq/seq_net.h"
#include "models/seq/seq_trainer.h"

namespace saccade {

namespace {

std::vector<FamilyField> seqFields() {
    const SeqTrainOptions d;
    const SeqConfig c;
    const std::vector<std::string> rnn{"rnn"}, transformer{"transformer"};
    return {
        choiceField("architecture", "Architecture:", {"rnn", "transformer"}, c.architecture,
                    "rnn (bidirectional encoder, attentive decoder) or transformer (pre-norm encoder-decoder whose "
                    "self- and cross-attention are recorded per layer and head)"),
        only(choiceField("cell", "Cell:", {"gru", "lstm"}, c.cell, "rnn: gru or lstm (encoder and decoder)"),
             "architecture", rnn),
        only(choiceField("scorer", "Scorer:", {"additive", "dot", "general", "scaled-dot", "local-p"}, c.scorer,
                         "additive (Bahdanau), dot, general (Luong global), scaled-dot, or local-p (Luong's predicted "
                         "position with a Gaussian window)"),
             "architecture", rnn),
        only(choiceField("alignment", "Alignment:", {"soft", "hard"}, c.alignment,
                         "soft (expected context) or hard (one sampled source token, REINFORCE)"),
             "architecture", rnn),
        only(cliOnly(realField("window", "Window:", 1, 100, c.window, "local-p: the window's half-width D (sigma = D / 2)")),
             "architecture", rnn),
        only(cliOnly(integerField("embed", "Embedding:", 1, 4096, c.embed, "token embedding width")), "architecture", rnn),
        only(cliOnly(integerField("encoder-hidden", "Encoder state:", 1, 4096, c.encoderHidden, "encoder state per direction")),
             "architecture", rnn),
        only(cliOnly(integerField("decoder-hidden", "Decoder state:", 1, 4096, c.decoderHidden,
                                  "decoder state (dot and scaled-dot: 2 x --encoder-hidden)")),
             "architecture", rnn),
        only(cliOnly(integerField("attention", "Scorer width:", 1, 4096, c.attention,
                                  "additive scorer and local-p predictor width")),
             "architecture", rnn),
        only(cliOnly(integerField("layers", "Layers:", 1, 12, c.layers, "transformer: layers of the encoder and of the decoder")),
             "architecture", transformer),
        only(cliOnly(integerField("heads", "Heads:", 1, 16, c.heads, "transformer: attention heads per layer")),
             "architecture", transformer),
        only(cliOnly(integerField("dim", "Width:", 1, 2048, c.dim, "transformer: model width (a multiple of --heads)")),
             "architecture", transformer),
        only(cliOnly(integerField("ff", "Feed-forward:", 1, 8192, c.ff, "transformer: feed-forward width")),
             "architecture", transformer),
        only(cliOnly(realField("entropy-bonus", "Entropy bonus:", 0, 10, d.entropyBonus, "hard alignment: entropy bonus")),
             "alignment", {"hard"}),
    };
}

Result<TrainSummary> trainSeq(const FamilyTrainRequest& r, const TrainProgressCallback& progress) {
    SeqTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    const auto& s = r.settings;
    o.model.task = r.dataset;
    o.model.architecture = textSetting(s, "architecture");
    o.model.cell = textSetting(s, "cell");
    o.model.scorer = textSetting(s, "scorer");
    o.model.alignment = textSetting(s, "alignment");
    o.model.window = realSetting(s, "window");
    o.model.embed = int(intSetting(s, "embed"));
    o.model.encoderHidden = int(intSetting(s, "encoder-hidden"));
    o.model.decoderHidden = int(intSetting(s, "decoder-hidden"));
    o.model.attention = int(intSetting(s, "attention"));
    o.model.layers = int(intSetting(s, "layers"));
    o.model.heads = int(intSetting(s, "heads"));
    o.model.dim = int(intSetting(s, "dim"));
    o.model.ff = int(intSetting(s, "ff"));
    o.entropyBonus = realSetting(s, "entropy-bonus");
    return trainSeqModel(o, progress);
}

std::string taskDescriptions() {
    std::string s;
    for (const auto& name : seqTaskNames())
        if (auto task = openSeqTask(name)) s += "\n  " + name + ": " + (*task)->description();
    return s;
}

}  // namespace

ModelFamily seqFamily() {
    ModelFamily f;
    f.name = "seq";
    f.title = "sequence model (alignment lab)";
    f.noun = "a sequence model";
    f.description = "An encoder-decoder with attention over the source (bidirectional GRU or LSTM encoder, attentive "
                    "decoder) on a task whose true alignment is known. Tasks:" + taskDescriptions();
    f.readsText = true;
    f.datasetKey = "task";
    f.evalCountKey = "eval-sentences";
    f.datasets = seqTaskNames;
    f.defaultDataset = SeqConfig{}.task;
    f.defaults = SeqTrainOptions{};
    f.fields = seqFields();
    f.progress.evalSoft = "eval exact match";
    f.progress.evalArgmax.clear();
    f.progress.evalSample.clear();
    f.progress.trainAccuracy = "token acc.";
    f.progress.entropy = false;
    f.reinforced = [](const FamilySettings& s) {
        return textSetting(s, "architecture") == "rnn" && textSetting(s, "alignment") == "hard";
    };
    f.train = trainSeq;
    f.progressLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"token acc", p.trainAccuracy}}, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) { return figureLine({{"exact match", p.evalSoft}}); };
    f.network = networkWith(seqConfigFromJson, [](const SeqConfig& c) { return makeSeqNet(c); });
    f.openText = [](const std::string& path, const std::string& device) -> Result<std::shared_ptr<const Translator>> {
        auto m = SeqModel::open(path, device);
        if (!m) return Error{m.error()};
        return std::shared_ptr<const Translator>(std::move(m).value());
    };
    f.openElsewhere = "reads text, not images: use translate, eval, render --text or the GUI's Sequences page";
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = seqConfigFromJson(config);
        if (!c) return dataset;
        return (c->transformer() ? std::string("transformer") : c->alignment + " " + c->scorer + " " + c->cell) + ", " +
               c->task;
    };
    return f;
}

}  // namespace saccade
