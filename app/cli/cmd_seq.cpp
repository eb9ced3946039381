// saccade-cli train seq, translate, and the sequence side of eval and render: encoder-decoders
// with attention over the source, on tasks whose true alignment is known.

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common/atomic_file.h"
#include "data/image_io.h"
#include "data/seq_task.h"
#include "render/alignment_render.h"
#include "render/gif_writer.h"
#include "models/seq/seq_bench.h"
#include "models/text_encoder.h"
#include "models/translation_maps.h"
#include "models/translator.h"
#include "models/translator_eval.h"
#include "reference_runner.h"
#include "strict_options.h"
#include "models/seq/seq_trainer.h"
#include "trace/seq_trace_json.h"
#include "trace/rule_kind.h"

namespace saccade::cli {

namespace {

// A text encoder's "translation": its pieces, each one's most-attended piece in the last layer.
void printEncoding(const SeqTranslation& t) {
    std::cout << "pieces : " << t.source.size() << " (";
    for (std::size_t i = 0; i < t.source.size(); ++i) std::cout << (i ? " " : "") << t.source[i];
    std::cout << ")\n";
    for (const auto& u : t.unknown) std::cout << "unknown: '" << u << "' has no pieces in the vocabulary: read as the unknown piece\n";
    std::cout << "output : a " << t.embedding.size() << "-d sentence embedding (--json prints it); a text encoder writes no text\n"
              << "each piece and the piece it attends most, last layer, mean over heads (--json: every layer and head, "
                 "and the rollout):\n";
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        const auto& row = t.alignment[i];
        const auto best = std::size_t(std::max_element(row.begin(), row.end()) - row.begin());
        std::cout << "  " << std::setw(3) << i << "  " << std::left << std::setw(14) << ("'" + t.tokens[i] + "'") << std::right
                  << " -> '" << t.source[best] << "' (position " << best << ") " << std::fixed << std::setprecision(2)
                  << row[best] << "  entropy " << t.entropy[i] << "\n";
    }
}

void printTranslation(const Translator& model, const SeqTranslation& t) {
    if (model.asTextEncoder()) return printEncoding(t);
    std::cout << "input  : " << model.detokenize(t.source) << "  (" << t.source.size() << " tokens)\n";
    for (const auto& u : t.unknown) std::cout << "unknown: '" << u << "' is not in the model's source vocabulary: read as <unk>\n";
    std::cout << "output : " << t.output << (t.finished ? "" : "  [no end token within the step budget]") << "\n";
    if (t.hasReference)
        std::cout << "check  : " << (t.correct() ? "correct" : "wrong; the task's answer is " + model.detokenize(t.reference.target))
                  << "\n";
    else
        std::cout << "check  : no reference: " << t.referenceError << "\n";
    std::cout << "rule " << t.rule << (isRule(t.rule, RuleKind::Sample) ? ", seed " + std::to_string(t.seed) : "")
              << "; each output token and the source token it attended most:\n";
    for (std::size_t i = 0; i < t.tokens.size(); ++i) {
        const auto& row = t.alignment[i];
        const auto best = std::size_t(std::max_element(row.begin(), row.end()) - row.begin());
        std::cout << "  " << std::setw(3) << i << "  " << std::left << std::setw(8) << ("'" + t.tokens[i] + "'") << std::right
                  << " <- '" << t.source[best] << "' (position " << best << ") " << std::fixed << std::setprecision(2)
                  << row[best] << (t.chosen[i] >= 0 ? "  read '" + t.source[size_t(t.chosen[i])] + "'" : "") << "  entropy "
                  << t.entropy[i] << (t.centre.empty() ? "" : "  centre " + std::to_string(t.centre[i]).substr(0, 5)) << "\n";
    }
}

void addTranslate(CLI::App& app, int& exitCode) {
    struct Args {
        std::string model, text, rule, device = "auto", out;
        std::uint64_t seed = 1;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "translate", "Run a sequence model on typed text: the output and its alignment (a target x source matrix, each "
                     "row the decoder's distribution over the source), checked against the task's own answer where "
                     "the model has a task.");
    cmd->add_option("--model", a->model, "a sequence model checkpoint (train seq), an imported TorchScript translator, "
                                         "or an imported text encoder (its self-attention over the pieces)")
        ->required()->check(regularFile());
    cmd->add_option("--text", a->text, "the input, e.g. \"3rd of March 2021\"")->required();
    cmd->add_option("--rule", a->rule, "soft, argmax or sample; an imported translator: translate, a text encoder: encode "
                                       "(default: the model's deterministic rule)");
    cmd->add_option("--seed", a->seed, "seed of the sample rule")->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--out", a->out, "also save the trace JSON (schema saccade.seq-trace) here (atomic)");
    cmd->add_flag("--json", a->json, "print the trace JSON");
    cmd->callback([a, &exitCode] {
        auto model = openTranslator(a->model, a->device);
        if (!model) { exitCode = badInput("translate", model.error()); return; }
        auto t = (*model)->translate(a->text, a->rule, a->seed);
        if (!t) { exitCode = badInput("translate", t.error()); return; }
        const auto json = seqTranslationToJson(*t, a->model, (*model)->taskName());
        if (!a->out.empty()) {
            if (auto w = writeFileAtomic(a->out, json + "\n"); !w) {
                sayFailure("translate", w.error());
                exitCode = kExitFailure;
                return;
            }
        }
        if (a->json) std::cout << json << "\n";
        else printTranslation(**model, *t);
    });
}

void addBenchSeq(CLI::App& bench, int& exitCode) {
    auto o = std::make_shared<SeqBenchOptions>();
    auto scorer = std::make_shared<std::string>("all");
    auto reference = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "seq", "Encoder-decoder with attention at the sizes of ../shared/bench/seq2seq_reference.py: training "
               "sentences/s and 1,000 sentences decoded greedily in one batch, per scorer; with --reference, that "
               "script in the same run and threads, and the ratios.");
    cmd->add_option("--scorer", *scorer, "additive, general, dot, scaled-dot, or all")->capture_default_str();
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_option("--model", o->model, "also time translating one 40-character input with this sequence model")
        ->check(regularFile());
    cmd->add_option("--batch", o->batch, "training batch")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--sentences", o->sentences, "sentences translated in one batch")->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--warmups", o->warmups, "untimed runs before the repeats")->capture_default_str()->check(wholeNumberIn(0, 100));
    cmd->add_option("--reference", *reference, "path of ../shared/bench/seq2seq_reference.py (run with /usr/bin/python3)")
        ->check(regularFile());
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([o, scorer, reference, json, &exitCode] {
        if (*scorer != "all") {
            if (*scorer != "additive" && *scorer != "general" && *scorer != "dot" && *scorer != "scaled-dot") {
                exitCode = badInput("bench seq", "unknown scorer '" + *scorer + "' (use additive, general, dot, scaled-dot or all)");
                return;
            }
            o->scorers = {*scorer};
        }
        auto r = benchSeq(*o);
        if (!r) { exitCode = badInput("bench seq", r.error()); return; }
        auto out = nlohmann::json::parse(seqBenchToJson(*o, *r));
        if (!reference->empty()) {
            for (const auto& s : r->scorers) {
                nlohmann::json ref;
                for (const char* kind : {"train", "translate"}) {
                    const auto line = runReferenceScript("bench seq", *reference,
                                                         {"--bench", kind, "--scorer", s.scorer, "--threads",
                                                          std::to_string(r->threads), "--repeats", std::to_string(o->repeats)},
                                                         r->threads);
                    if (line.empty()) { exitCode = kExitFailure; return; }  // the runner said why
                    const char* key = std::string(kind) == "train" ? "sentences_per_s" : "ms";
                    if (!line.contains(key) || !line[key].is_number() || line[key].get<double>() <= 0) {
                        std::cerr << "saccade-cli bench seq: " << *reference << " printed no positive " << key << "\n";
                        exitCode = kExitFailure;
                        return;
                    }
                    ref[kind] = {{key, line[key].get<double>()}};
                    ref["torch"] = line.value("torch", std::string("?"));
                }
                auto& mine = out["scorers"][s.scorer];
                mine["reference"] = ref;
                mine["ratios"] = {{"train_sentences_per_s", s.trainSentencesPerSecond / ref["train"]["sentences_per_s"].get<double>()},
                                  {"translate_speed", ref["translate"]["ms"].get<double>() / s.translateMs}};
            }
            out["ratios"] = out["scorers"][r->scorers.front().scorer]["ratios"];
        }
        if (*json) { std::cout << out.dump(2) << "\n"; return; }
        std::cout << "encoder-decoder on " << r->device << ", " << r->threads
                  << " intra-op thread(s): embed 64, encoder 2 x 128, decoder 256, attention 128, vocabularies 48, "
                     "source 24, target 12\n";
        for (const auto& s : r->scorers) {
            std::cout << std::fixed << "  " << std::left << std::setw(11) << s.scorer << std::right << std::setprecision(0)
                      << " training " << s.trainSentencesPerSecond << " sentences/s (batch " << o->batch << ")   "
                      << o->sentences << " sentences decoded in " << s.translateMs << " ms";
            const auto& mine = out["scorers"][s.scorer];
            if (mine.contains("ratios"))
                std::cout << std::setprecision(2) << "\n              reference: " << std::setprecision(0)
                          << mine["reference"]["train"]["sentences_per_s"].get<double>() << " sentences/s, "
                          << mine["reference"]["translate"]["ms"].get<double>() << " ms   ours/reference: training "
                          << std::setprecision(2) << mine["ratios"]["train_sentences_per_s"].get<double>()
                          << "x (target 2), translation " << mine["ratios"]["translate_speed"].get<double>() << "x (target 3)";
            std::cout << "\n";
        }
        if (!o->model.empty())
            std::cout << std::setprecision(2) << "  " << o->model << ": one " << r->oneSentenceChars
                      << "-character input translated in " << r->oneSentenceMs << " ms (the page's budget per keystroke: 50 ms)\n";
    });
}

}  // namespace

int runSeqEval(const std::string& path, const std::string& device, const std::string& rule, std::int64_t limit,
               std::uint64_t seed, bool json, const std::string& pairsFile) {
    std::vector<SeqPairLine> pairs;
    if (!pairsFile.empty()) {
        auto read = readSeqPairs(pairsFile);
        if (!read) return badInput("eval", read.error());
        pairs = std::move(read).value();
    }
    auto model = openTranslator(path, device);
    if (!model) return badInput("eval", model.error());
    SeqEvalOptions o;
    o.rule = rule;
    o.seed = seed;
    if (limit > 0) o.limit = limit;
    auto r = pairs.empty() ? (*model)->evaluate(o) : evaluatePairs(**model, pairs, pairsFile, o);
    if (!r) return badInput("eval", r.error());
    if (json) {
        std::cout << seqEvalReportToJson(*r) << "\n";
        return 0;
    }
    std::ostringstream aer;
    if (r->aerMeasured) aer << std::fixed << std::setprecision(3) << r->aer << " (" << r->aerSentences << " sentences)";
    else aer << "not measured";
    std::cout << std::fixed << std::setprecision(2) << "sequence model"
              << (pairsFile.empty() ? " on '" + r->task + "', test split, " : " on " + pairsFile + ", ") << r->n
              << (pairsFile.empty() ? " sentences" : " pairs") << ", rule " << r->rule << ", " << r->seconds << " s\n"
              << "  exact match " << 100 * r->exactMatch << "%   token accuracy " << 100 * r->tokenAccuracy << "%   AER "
              << aer.str() << "   attention entropy " << std::setprecision(3) << r->entropy << " nats\n"
              << "  permutation test: ";
    if (r->permutationTested)
        std::cout << "median TV " << r->permutationMedianTv << ", mean " << r->permutationMeanTv << ", " << std::setprecision(1)
                  << 100 * r->permutationSmallShare
                  << "% of steps change by < 0.05 (attention is a record of access, not an explanation)\n";
    else
        std::cout << "not run (" << r->permutationNote << ")\n";
    if (r->aerMeasured && !pairsFile.empty()) std::cout << "  AER: " << r->aerSource << "\n";
    if (r->unknownSourceWords > 0) {
        std::cout << "  " << r->sentencesWithUnknown << " of " << r->n << " sources hold " << r->unknownSourceWords
                  << " token(s) outside the model's source vocabulary, read as <unk>:";
        for (const auto& u : r->unknownExamples) std::cout << " '" << u << "'";
        std::cout << "\n";
    }
    if (r->unwritableTargetTokens > 0) {
        std::cout << "  " << r->unwritableTargetTokens
                  << " reference token(s) are outside the model's output vocabulary, so it can never write them:";
        for (const auto& u : r->unwritableExamples) std::cout << " '" << u << "'";
        std::cout << "\n";
    }
    std::cout << "  exact match by source length:";
    for (const auto& b : r->byLength)
        std::cout << "  " << b.length << (b.seenInTraining ? "" : "*") << ": " << std::setprecision(0) << 100 * b.exactMatch << "%";
    bool unseen = false;
    for (const auto& b : r->byLength) unseen = unseen || !b.seenInTraining;
    std::cout << (unseen ? "\n  (* = a length the training split never has)\n" : "\n");
    return 0;
}

int runSeqRender(const std::string& path, const std::string& device, const std::string& text, const std::string& rule,
                 std::uint64_t seed, const std::string& out, int scale, int delay, const std::string& caption,
                 const std::string& map, bool headView) {
    const auto dot = out.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : out.substr(dot);
    if (ext != ".png" && ext != ".gif" && ext != ".svg" && ext != ".csv")
        return badInput("render", "--out must end in .png, .svg, .csv (the matrix) or .gif (the playback)");
    auto model = openTranslator(path, device);
    if (!model) return badInput("render", model.error());
    auto translated = (*model)->translate(text, rule, seed);
    if (!translated) return badInput("render", translated.error());
    if (headView && ext != ".png") return badInput("render", "--head-view draws a .png");
    auto t = translated;
    if (!map.empty()) {
        std::string names;
        bool found = false;
        for (std::size_t i = 0; i < translated->maps.size() && !found; ++i) {
            if (translated->maps[i].name == map) {
                t = withAttentionMap(*translated, i);
                found = true;
            }
            names += (names.empty() ? "" : ", ") + translated->maps[i].name;
        }
        if (!found)
            return badInput("render", translated->maps.empty() ? "--map is for Transformers; this model has one alignment"
                                                               : "no map '" + map + "' (this model has: " + names + ")");
    }
    AlignmentRenderOptions o;
    if (scale > 0) o.cell = 8 * scale;
    // A text encoder writes nothing: its caption names the map and the pieces.
    const bool encoding = !translated->embedding.empty();
    const std::string shown = map.empty() ? "the last layer's mean self-attention" : map;
    const std::string defaultCaption =
        encoding ? shown + ", " + std::to_string(t->source.size()) + " pieces" : alignmentCaption(*t);
    o.caption = caption == "-" ? "" : caption.empty() ? defaultCaption : caption;
    Result<Unit> written = Unit{};
    if (ext == ".png") written = saveImagePng(headView ? renderHeadView(*t, o) : renderAlignment(*t, o), out);
    else if (ext == ".svg") written = writeFileAtomic(out, alignmentSvg(*t, o));
    else if (ext == ".csv") written = writeFileAtomic(out, seqAlignmentToCsv(*t));
    else written = writeGif(renderAlignmentFrames(*t, o), delay, out);
    if (!written) {
        sayFailure("render", written.error());
        return kExitFailure;
    }
    if (encoding)
        std::cout << "wrote " << out << " (" << t->source.size() << " pieces x " << t->source.size() << " pieces, " << shown << ")\n";
    else
        std::cout << "wrote " << out << " (" << t->tokens.size() << " steps x " << t->source.size() << " source tokens, rule "
                  << t->rule << ", output " << t->output << ")\n";
    return 0;
}

void addSeqCommands(CLI::App& app, CLI::App& bench, int& exitCode) {
    addTranslate(app, exitCode);
    addBenchSeq(bench, exitCode);
}

}  // namespace saccade::cli
