// The sequence models' registration (an attentive RNN encoder-decoder or a Transformer on a task
// whose alignment is known): training fields, trainer, network and list line
// (models/model_family.h). They read text, so they open on the Sequences page, not as image models.

#include <algorithm>
#include <filesystem>

#include "attention/qkv_capture.h"
#include "data/seq_pairs.h"
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

/// The training options a request stands for.
SeqTrainOptions seqOptions(const FamilyTrainRequest& r, SettingsReader& s) {
    SeqTrainOptions o;
    static_cast<TrainCommonOptions&>(o) = r.common;
    o.model.task = r.dataset;
    o.model.architecture = s.text("architecture");
    o.model.cell = s.text("cell");
    o.model.scorer = s.text("scorer");
    o.model.alignment = s.text("alignment");
    o.model.window = s.real("window");
    o.model.embed = int(s.integer("embed"));
    o.model.encoderHidden = int(s.integer("encoder-hidden"));
    o.model.decoderHidden = int(s.integer("decoder-hidden"));
    o.model.attention = int(s.integer("attention"));
    o.model.layers = int(s.integer("layers"));
    o.model.heads = int(s.integer("heads"));
    o.model.dim = int(s.integer("dim"));
    o.model.ff = int(s.integer("ff"));
    o.entropyBonus = s.real("entropy-bonus");
    return o;
}

std::string taskDescriptions() {
    std::string s;
    for (const auto& name : seqTaskNames())
        if (auto task = openSeqTask(name)) s += "\n  " + name + ": " + (*task)->description();
    return s;
}

/// The sentences a request names, as source tokens: the task's first `count` test sentences, or
/// those of a text file (one per line; every token must be in the model's source vocabulary).
Result<std::vector<std::vector<std::string>>> requestedSentences(const SeqModel& model, const AttentionRecordRequest& r) {
    const SeqTask& task = *model.task();
    std::vector<std::vector<std::string>> out;
    if (r.dataset.empty() || r.dataset == task.name()) {
        for (std::int64_t i = 0; i < std::min<std::int64_t>(r.count, SeqTask::kTestSize); ++i)
            out.push_back(task.sample(Split::Test, i, kSeqTestSeed).source);
        return out;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(r.dataset, ec))
        return Error{"--dataset " + r.dataset + ": give a text file of sentences (one per line) or this model's task, " +
                     task.name()};
    auto lines = readSeqPairs(r.dataset, true);
    if (!lines) return Error{lines.error()};
    for (const auto& line : *lines) {
        if (std::int64_t(out.size()) == r.count) break;
        const std::string where = r.dataset + ":" + std::to_string(line.line) + ": ";
        auto tokens = model.tokenize(line.source);
        if (!tokens.unknown.empty())
            return Error{where + "the model's source vocabulary has no '" + tokens.unknown.front() + "'" +
                         (tokens.unknown.size() > 1 ? " (nor " + std::to_string(tokens.unknown.size() - 1) + " more)" : "")};
        if (tokens.tokens.size() > kMaxSeqTokens)
            return Error{where + "the sentence holds " + std::to_string(tokens.tokens.size()) + " tokens; at most " +
                         std::to_string(kMaxSeqTokens) + " are read"};
        out.push_back(std::move(tokens.tokens));
    }
    return out;
}

/// The model's own translation of `source`, less its last token: what its decoder's positions
/// after "<s>" read when it wrote it (a translation of "</s>" alone gives "</s>" to read).
Result<std::vector<std::string>> decoderReads(const SeqModel& model, const std::string& text) {
    QkvCapture unrecorded;  // the greedy steps' layers are not the record
    auto t = model.translate(text);
    if (!t) return Error{t.error()};
    auto tokens = t->tokens;
    if (tokens.size() > 1) tokens.pop_back();
    return tokens;
}

/// A sequence Transformer's attention layers on the sentences the request names, one sentence at
/// a time: the encoder's self-attention as its translation records it, or with `decoder` also the
/// decoder's self- and cross-attention, teacher-forced on the model's own translation. Without either, the task's test sentences
/// in evaluation batches (what length fidelity has always read).
Result<AttentionRecording> recordSeqAttention(const std::string& path, const AttentionRecordRequest& r) {
    auto model = SeqModel::open(path, "cpu");
    if (!model) return Error{model.error()};
    const auto& config = (*model)->config();
    if (!config.transformer() && !r.decoder)
        return Error{path + " is a recurrent sequence model; its attention is not self-attention"};
    if (!config.transformer())
        return Error{path + " is a recurrent sequence model: its decoder attends through its " + config.scorer +
                     " scorer over recurrent states, not through a Transformer layer's queries and keys"};
    auto sentences = requestedSentences(**model, r);
    if (!sentences) return Error{sentences.error()};
    const SeqTask* task = (*model)->task();
    AttentionRecording out;
    for (const auto& source : *sentences) {
        out.inputs.sentences.push_back(task->detokenize(source));
        out.inputs.tokens.push_back(source);
    }
    if (r.dataset.empty() && !r.decoder) {
        QkvCapture capture;
        SeqEvalOptions eval;
        eval.limit = std::int64_t(sentences->size());
        eval.permutation = false;
        if (auto done = (*model)->evaluate(eval); !done) return Error{done.error()};
        out.layers = capture.layers();
        return out;
    }
    QkvCapture capture(r.decoder);
    for (std::size_t i = 0; i < sentences->size(); ++i) {
        if (!r.decoder) {  // the encoder alone: one translation records it, once
            if (auto t = (*model)->translate(out.inputs.sentences[i]); !t) return Error{t.error()};
            continue;
        }
        auto reads = decoderReads(**model, out.inputs.sentences[i]);
        if (!reads) return Error{reads.error()};
        std::vector<std::string> tokens = std::move(reads).value();
        if (auto forced = (*model)->forcedAlignment((*sentences)[i], tokens, "", 1); !forced) return Error{forced.error()};
        tokens.insert(tokens.begin(), "<s>");
        out.inputs.decoderTokens.push_back(std::move(tokens));
    }
    out.layers = capture.layers();
    return out;
}

Result<std::shared_ptr<const Translator>> openSeqText(const std::string& path, const std::string& device) {
    auto m = SeqModel::open(path, device);
    if (!m) return Error{m.error()};
    return std::shared_ptr<const Translator>(std::move(m).value());
}

}  // namespace

ModelFamily seqFamily() {
    ModelFamily f({"seq", "sequence model (alignment lab)", "a sequence model",
                   "An encoder-decoder with attention over the source (bidirectional GRU or LSTM encoder, attentive "
                   "decoder) on a task whose true alignment is known. Tasks:" + taskDescriptions()},
                  FamilyOpeners::text(openSeqText, "reads text, not images: use translate, eval, render --text or the "
                                                   "GUI's Sequences page"));
    f.readsText = true;
    f.recordAttentionInputs = recordSeqAttention;
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
    setTrainer(f, seqOptions, trainSeqModel);
    f.progressLine = [](const TrainProgress& p, const FamilySettings&) {
        return figureLine({{"token acc", p.trainAccuracy}}, "  ");
    };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) { return figureLine({{"exact match", p.evalSoft}}); };
    f.network = networkWith(seqConfigFromJson, [](const SeqConfig& c) { return makeSeqNet(c); });
    f.listLine = [](const std::string& config, const std::string& dataset) {
        const auto c = seqConfigFromJson(config);
        if (!c) return dataset;
        return (c->transformer() ? std::string("transformer") : c->alignment + " " + c->scorer + " " + c->cell) + ", " +
               c->task;
    };
    return f;
}

}  // namespace saccade
