#include "analysis/shards/shard_merge.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/runs/adequacy.h"
#include "analysis/runs/boundary_sweep.h"
#include "analysis/attribution/caption_faithfulness.h"
#include "analysis/runs/caption_sweep.h"
#include "analysis/runs/dataset_comparison.h"
#include "analysis/attribution/faithfulness.h"
#include "io/shard_json.h"
#include "models/attention_model.h"

namespace saccade {

namespace {

using Json = nlohmann::json;

/// A field that every shard must have, with a message that names it.
const Json& need(const Json& j, const char* key, const std::string& where) {
    const auto it = j.find(key);
    if (it == j.end()) throw std::runtime_error(where + " lacks \"" + key + "\"");
    return *it;
}

/// A count in a shard: a whole JSON number from 0 to 2^53 (a forged 2^64 + 5, -100 or 218.5 is
/// refused); `what` names it in the error.
std::int64_t wholeCount(const Json& v, const std::string& what) {
    constexpr std::int64_t kMax = std::int64_t{1} << 53;
    const bool whole = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(kMax)
                                              : v.is_number_integer() && v.get<std::int64_t>() >= 0 && v.get<std::int64_t>() <= kMax;
    if (!whole) throw std::runtime_error(what + " is " + v.dump() + ", not a whole number from 0 to 2^53");
    return v.get<std::int64_t>();
}

/// A name in a shard that `parse` reads (an output kind, a training mode), refused with its key.
template <typename Parse>
auto namedField(const Json& j, const char* key, const std::string& where, Parse parse) {
    const Json& v = need(j, key, where);
    if (!v.is_string()) throw std::runtime_error(where + ": \"" + key + "\" is not a name");
    auto parsed = parse(v.get<std::string>());
    if (!parsed) throw std::runtime_error(where + ": \"" + key + "\": " + parsed.error());
    return *parsed;
}

std::int64_t shardCount(const Json& j, const char* key, const std::string& where) {
    return wholeCount(need(j, key, where), where + ": \"" + key + "\"");
}

/// The number of items a shard's header says it covers.
std::int64_t headerItems(const Json& doc) {
    const auto& h = doc["shard"];
    return h["end"].get<std::int64_t>() - h["begin"].get<std::int64_t>();
}

std::string shardTag(const Json& doc) {
    const auto& h = doc["shard"];
    return "shard " + std::to_string(h["index"].get<int>()) + "/" + std::to_string(h["count"].get<int>());
}

AttentionCorrectness correctnessFrom(const Json& classes) {
    AttentionCorrectness c;
    for (const auto& [name, e] : classes.items()) {
        auto& entry = c.byClass[name];
        entry.massSum = ExactSum::fromUnits(e.at("mass_units").get<std::int64_t>());
        entry.hits = e.at("hits").get<std::int64_t>();
        entry.words = e.at("words").get<std::int64_t>();
    }
    return c;
}

/// The evaluation of the whole run from its shards' evaluations.
EvalReport mergeEval(const std::vector<Json>& shards) {
    const Json& first = shards.front();
    EvalReport r;
    r.dataset = need(first, "dataset", shardTag(first));
    r.split = need(first, "split", shardTag(first));
    r.trainedMode = namedField(first, "trained_mode", shardTag(first), parseTrainingMode);
    r.outputKind = namedField(first, "output_kind", shardTag(first), parseOutputKind);
    const Json& rules = need(first, "rules", shardTag(first));
    std::vector<std::int64_t> correct(rules.size(), 0), n(rules.size(), 0);
    std::vector<BleuScores> bleu(rules.size());
    std::vector<std::int64_t> images(rules.size(), 0), exact(rules.size(), 0);
    std::vector<AttentionCorrectness> correctness(rules.size());
    std::vector<ObjectNaming> naming(rules.size());
    const bool captions = first.contains("caption_counts");
    for (const Json& doc : shards) {
        const std::string tag = shardTag(doc);
        const Json& own = need(doc, "rules", tag);
        if (own.size() != rules.size()) throw std::runtime_error(tag + " evaluated other rules than shard 0");
        r.seconds += need(doc, "seconds", tag).get<double>();
        for (std::size_t k = 0; k < rules.size(); ++k) {
            const std::string rule = rules[k].at("rule");
            if (own[k].at("rule") != rule) throw std::runtime_error(tag + " evaluated other rules than shard 0");
            const std::string where = tag + " rule " + rule;
            const std::int64_t right = shardCount(own[k], "correct", where), total = shardCount(own[k], "n", where);
            if (right > total) throw std::runtime_error(where + ": " + std::to_string(right) + " correct of " + std::to_string(total));
            correct[k] += right;
            n[k] += total;
            if (!captions) continue;
            const Json& counts = need(doc, "caption_counts", tag).at(rule);
            for (int g = 0; g < 4; ++g) {
                const std::int64_t m = wholeCount(counts.at("bleu_matches").at(g), where + ": a BLEU match count");
                const std::int64_t t = wholeCount(counts.at("bleu_totals").at(g), where + ": a BLEU n-gram count");
                if (m > t) throw std::runtime_error(where + ": more BLEU matches than n-grams");
                bleu[k].matches[g] += m;
                bleu[k].totals[g] += t;
            }
            bleu[k].candidateLength += shardCount(counts, "candidate_length", where);
            bleu[k].referenceLength += shardCount(counts, "reference_length", where);
            const std::int64_t scored = shardCount(counts, "images", where), same = shardCount(counts, "exact", where);
            if (same > scored || scored > headerItems(doc))
                throw std::runtime_error(where + ": " + std::to_string(same) + " exact of " + std::to_string(scored) +
                                         " images in a shard of " + std::to_string(headerItems(doc)));
            images[k] += scored;
            exact[k] += same;
            for (const auto& [name, e] : correctnessFrom(counts.at("classes")).byClass) {
                auto& sum = correctness[k].byClass[name];
                sum.massSum.add(e.massSum);
                sum.hits += e.hits;
                sum.words += e.words;
            }
            const Json& named = need(counts, "named", where);
            if (!named.is_object()) throw std::runtime_error(where + ": \"named\" is not an object of sizes");
            for (const auto& [size, count] : named.items()) {
                auto& sum = naming[k].bySize[size];
                const std::int64_t said = shardCount(count, "named", where), held = shardCount(count, "objects", where);
                if (said > held) throw std::runtime_error(where + ": more " + size + " objects named than held");
                sum.named += said;
                sum.objects += held;
            }
        }
    }
    for (std::size_t k = 0; k < rules.size(); ++k) {
        const std::string rule = rules[k].at("rule");
        r.rules.push_back(wilsonAccuracy(rule, correct[k], n[k]));
        if (captions) r.captions.push_back(captionRuleReport(captionScores(rule, bleu[k], images[k], exact[k], correctness[k], naming[k])));
    }
    return r;
}

std::string mergeCompare(const std::vector<Json>& shards, int indent) {
    DatasetComparison c;
    c.report = mergeEval(shards);
    const Json& first = shards.front();
    c.deterministicRule = need(first, "deterministic_rule", shardTag(first));
    c.trainingRule = need(first, "training_rule", shardTag(first));
    c.seed = need(first, "seed", shardTag(first)).get<std::uint64_t>();
    std::int64_t images = 0;
    for (const Json& doc : shards) {
        const auto begin = doc["shard"]["begin"].get<std::int64_t>();
        const std::int64_t items = headerItems(doc);
        images += items;
        const std::string tag = shardTag(doc);
        for (const auto& i : need(doc, "sample_vs_deterministic", tag).at("images")) {
            const std::int64_t at = wholeCount(i, tag + ": a disagreeing image");
            if (at < begin || at >= begin + items || (!c.disagree.empty() && at <= c.disagree.back()))
                throw std::runtime_error(tag + " lists image " + std::to_string(at) + " out of its range or order");
            c.disagree.push_back(at);
        }
    }
    c.disagreement = images == 0 ? 0.0 : double(c.disagree.size()) / double(images);
    c.kCurve = kCurveOf(c.report);
    return datasetComparisonToJson(c, indent);
}

/// Shards whose reports list their items (sweep positions, adequacy images): shard 0's report,
/// with every later shard's items (`items` picks the list) appended in order and the timings summed.
/// A shard without items names no model: `model` (when given) fills it from a later one.
template <typename Report, typename Parse, typename Items>
Report concatenateShards(const std::vector<Json>& shards, Parse parse, Items items,
                         std::string Report::*model = nullptr) {
    Report merged;
    for (std::size_t i = 0; i < shards.size(); ++i) {
        Result<Report> part = parse(shards[i].dump());
        if (!part) throw std::runtime_error(shardTag(shards[i]) + ": " + part.error());
        if (i == 0) {
            merged = std::move(part).value();
            continue;
        }
        if (model && (merged.*model).empty()) merged.*model = part.value().*model;
        auto& from = items(part.value());
        auto& into = items(merged);
        into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
        merged.seconds += part->seconds;
    }
    return merged;
}

std::string mergeSweep(const std::vector<Json>& shards, int indent) {
    auto merged = concatenateShards<SweepResult>(shards, sweepFromJson, [](SweepResult& r) -> auto& { return r.points; },
                                                 &SweepResult::modelId);
    return sweepToJson(merged, indent);
}

std::string mergeCaptionSweep(const std::vector<Json>& shards, int indent) {
    auto merged = concatenateShards<CaptionSweep>(shards, captionSweepFromJson,
                                                  [](CaptionSweep& s) -> auto& { return s.points; });
    return captionSweepToJson(merged, indent);
}

std::string mergeFaithfulness(const std::vector<Json>& shards, int indent) {
    FaithfulnessSums sums;
    double seconds = 0;
    for (const Json& doc : shards) {
        auto part = faithfulnessSumsFromJson(doc.dump());
        if (!part) throw std::runtime_error(shardTag(doc) + ": " + part.error());
        sums.add(*part);
        seconds += need(doc, "seconds", shardTag(doc)).get<double>();
    }
    const Json& first = shards.front();
    std::vector<double> fractions;
    for (const auto& d : need(first, "deletion", shardTag(first))) fractions.push_back(d.at("fraction").get<double>());
    auto report = faithfulnessFromSums(sums, fractions, need(first, "dataset", shardTag(first)),
                                       need(first, "rule", shardTag(first)));
    report.seconds = seconds;
    return faithfulnessToJson(report, indent);
}

std::string mergeCaptionFaithfulness(const std::vector<Json>& shards, int indent) {
    const Json& first = shards.front();
    std::vector<double> fractions;
    for (const auto& d : need(first, "deletion", shardTag(first))) fractions.push_back(d.at("fraction").get<double>());
    CaptionFaithfulnessSums sums;
    sums.keptAttended.assign(fractions.size(), 0);
    sums.keptRandom.assign(fractions.size(), 0);
    double seconds = 0;
    for (const Json& doc : shards) {
        auto part = captionFaithfulnessSumsFromJson(doc.dump());
        if (!part) throw std::runtime_error(shardTag(doc) + ": " + part.error());
        const Json& deletion = need(doc, "deletion", shardTag(doc));
        for (std::size_t f = 0; f < fractions.size() && f < deletion.size(); ++f)
            if (deletion[f].at("fraction").get<double>() != fractions[f])
                throw std::runtime_error(shardTag(doc) + " occluded other fractions than shard 0");
        const auto& h = doc["shard"];
        if (part->keptAttended.size() != fractions.size() ||
            part->images != h["end"].get<std::int64_t>() - h["begin"].get<std::int64_t>())
            throw std::runtime_error(shardTag(doc) + " does not match its own header");
        sums.add(*part);
        seconds += need(doc, "seconds", shardTag(doc)).get<double>();
    }
    if (sums.words == 0) throw std::runtime_error("no caption in any shard named an object: nothing to measure");
    auto report = captionFaithfulnessFromSums(sums, fractions, need(first, "dataset", shardTag(first)),
                                              need(first, "rule", shardTag(first)));
    report.seconds = seconds;
    return captionFaithfulnessToJson(report, indent);
}

/// An image's adequacy signals: a number in the signal's range, or null where it may be unmeasured.
/// With sampled runs, agreement and output entropy are always measured; fractions and
/// probabilities lie in [0, 1], entropies and spreads are not negative.
void checkSignals(const Json& image, bool sampled, const std::string& where) {
    for (const auto& info : adequacySignals()) {
        const bool mustBeMeasured =
            sampled && (info.signal == AdequacySignal::Agreement || info.signal == AdequacySignal::OutputEntropy);
        const auto it = image.find(info.key);
        if (it == image.end()) {  // a signal newer than the file is not measured there
            if (!mustBeMeasured) continue;
            throw std::runtime_error(where + " lacks the signal \"" + info.key + "\"");
        }
        if (it->is_null() && !mustBeMeasured) continue;
        const bool unitRange = info.signal == AdequacySignal::Agreement || info.signal == AdequacySignal::Confidence ||
                               info.signal == AdequacySignal::ShiftAgreement || info.signal == AdequacySignal::ShiftLook;
        if (!it->is_number() || it->get<double>() < 0 || (unitRange && it->get<double>() > 1 + 1e-6) ||
            !std::isfinite(it->get<double>()))
            throw std::runtime_error(where + ": the signal \"" + info.key + "\" is " + it->dump() + ", out of its range");
    }
}

std::string mergeAdequacy(const std::vector<Json>& shards, int indent) {
    for (const Json& doc : shards) {
        const std::string tag = shardTag(doc);
        const Json& images = need(doc, "per_image", tag);
        const auto begin = doc["shard"]["begin"].get<std::int64_t>();
        if (!images.is_array() || std::int64_t(images.size()) != headerItems(doc))
            throw std::runtime_error(tag + " lists " + std::to_string(images.is_array() ? images.size() : 0) +
                                     " images for the " + std::to_string(headerItems(doc)) + " of its header");
        const bool sampled = shardCount(doc, "runs", tag) > 0;
        for (std::size_t i = 0; i < images.size(); ++i) {
            if (shardCount(images[i], "index", tag + " per_image") != begin + std::int64_t(i))
                throw std::runtime_error(tag + " per_image entry " + std::to_string(i) + " is not image " +
                                         std::to_string(begin + std::int64_t(i)));
            checkSignals(images[i], sampled, tag + " image " + std::to_string(begin + std::int64_t(i)));
        }
    }
    auto merged = concatenateShards<AdequacyReport>(shards, adequacyImagesFromJson,
                                                    [](AdequacyReport& r) -> auto& { return r.images; },
                                                    &AdequacyReport::modelId);
    const auto targets = merged.targets;
    merged.targets.clear();
    finishAdequacy(merged, targets);
    return adequacyReportToJson(merged, indent);
}

}  // namespace

Result<std::string> mergeShardDocuments(const std::vector<std::string>& documents,
                                        const std::vector<std::string>& names, int indent) {
    auto shards = orderedShards(documents, names);
    if (!shards) return Error{shards.error()};
    const std::string command = shards->front()["shard"]["command"];
    try {
        if (command == "eval") return evalReportToJson(mergeEval(*shards), indent);
        if (command == "compare") return mergeCompare(*shards, indent);
        if (command == "sweep") return mergeSweep(*shards, indent);
        if (command == "caption-sweep") return mergeCaptionSweep(*shards, indent);
        if (command == "faithfulness") return mergeFaithfulness(*shards, indent);
        if (command == "caption-faithfulness") return mergeCaptionFaithfulness(*shards, indent);
        if (command == "adequacy") return mergeAdequacy(*shards, indent);
    } catch (const std::exception& e) {
        return Error{std::string("cannot merge: ") + firstLine(e.what())};
    }
    return Error{"cannot merge shards of '" + command +
                 "': only eval, compare, sweep, caption-sweep, faithfulness, caption-faithfulness and adequacy shard"};
}

}  // namespace saccade
