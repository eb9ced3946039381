#include "analysis/runs/adequacy.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>

#include "io/shard_json.h"

#include "metrics/caption_metrics.h"
#include "analysis/runs/dataset_comparison.h"
#include "analysis/runs/shift_agreement.h"
#include "io/json_fields.h"
#include "models/model_input.h"
#include "trace/ground_truth.h"

namespace saccade {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double entropyOf(const std::vector<double>& p) {
    double h = 0;
    for (double v : p)
        if (v > 0) h -= v * std::log(v);
    return h;
}

// Where run `run` looked at step t, in pixels: its chosen cell's centre or its glimpse centre.
std::optional<std::array<double, 2>> lookedAt(const RunSet& set, const RunRecord& run, int t) {
    if (set.gridRows > 0) {
        if (t >= int(run.cells.size()) || run.cells[size_t(t)] < 0) return std::nullopt;
        const int cell = run.cells[size_t(t)];
        const double cw = double(set.imageWidth) / set.gridCols, ch = double(set.imageHeight) / set.gridRows;
        return std::array<double, 2>{(cell % set.gridCols + 0.5) * cw, (cell / set.gridCols + 0.5) * ch};
    }
    if (t >= int(run.points.size())) return std::nullopt;
    return std::array<double, 2>{run.points[size_t(t)][0], run.points[size_t(t)][1]};
}

// RMS distance of where the runs looked at step t from their mean, pixels (NaN: no run has it).
double stepSpread(const RunSet& set, int t) {
    double sx = 0, sy = 0, sxx = 0, syy = 0;
    int count = 0;
    for (const auto& run : set.runs)
        if (const auto p = lookedAt(set, run, t)) {
            sx += (*p)[0], sy += (*p)[1], sxx += (*p)[0] * (*p)[0], syy += (*p)[1] * (*p)[1];
            ++count;
        }
    if (count == 0) return kNaN;
    const double mx = sx / count, my = sy / count;
    return std::sqrt(std::max(0.0, sxx / count - mx * mx + syy / count - my * my));
}

double lookSpread(const RunSet& set) {
    double total = 0;
    int steps = 0;
    for (int t = 0; t < set.steps; ++t)
        if (const double v = stepSpread(set, t); !std::isnan(v)) {
            total += v;
            ++steps;
        }
    return steps ? total / steps : 0.0;
}

// The probability the deterministic trace gave its word at step t (NaN when not recorded).
double wordProbability(const Trace& t, size_t step) {
    const auto& s = t.steps[step];
    const auto it = std::find(t.classNames.begin(), t.classNames.end(), s.token);
    const auto index = size_t(it - t.classNames.begin());
    return it == t.classNames.end() || index >= s.outputProbs.size() ? kNaN : double(s.outputProbs[index]);
}

double mutualInformation(const RunSet& set) {
    if (!traitsOf(set.outputKind).labelsAreClasses || set.runs.empty()) return kNaN;
    const size_t classes = set.runs.front().probs.size();
    if (classes == 0) return kNaN;
    std::vector<double> mean(classes, 0.0);
    double meanEntropy = 0;
    for (const auto& run : set.runs) {
        if (run.probs.size() != classes) return kNaN;
        std::vector<double> p(run.probs.begin(), run.probs.end());
        meanEntropy += entropyOf(p) / double(set.runs.size());
        for (size_t c = 0; c < classes; ++c) mean[c] += p[c] / double(set.runs.size());
    }
    return std::max(0.0, entropyOf(mean) - meanEntropy);
}

// The deterministic output's probability; a caption's geometric mean word probability.
double confidenceOf(const RunSet& set) {
    const auto& t = set.deterministic;
    if (!traitsOf(set.outputKind).referenceScored) {
        const int label = t.output.label;
        return label >= 0 && label < int(t.output.probs.size()) ? double(t.output.probs[size_t(label)]) : kNaN;
    }
    double logSum = 0;
    int words = 0;
    for (size_t k = 0; k < t.steps.size(); ++k) {
        if (t.steps[k].token.empty()) continue;
        const double p = wordProbability(t, k);
        if (std::isnan(p)) return kNaN;
        logSum += std::log(std::max(1e-30, p));
        ++words;
    }
    return words ? std::exp(logSum / words) : kNaN;
}

nlohmann::json signalsJson(const std::vector<SignalCurve>& curves) {
    using nlohmann::json;
    json signals = json::array();
    for (const auto& c : curves) {
        const auto& info = signalInfo(c.signal);
        json s = {{"name", info.key},
                  {"label", info.label},
                  {"unit", info.unit},
                  {"adequate", info.higherIsAdequate ? "higher" : "lower"},
                  {"available", c.available}};
        if (c.available) {
            s["aurc"] = c.aurc;
            json targets = json::array();
            for (const auto& t : c.targets)
                targets.push_back({{"target_accuracy", t.target},
                                   {"coverage", t.coverage},
                                   {"accuracy", t.kept ? json(t.accuracy) : json(nullptr)},
                                   {"images", t.kept},
                                   {"threshold", t.threshold ? numberOrNull(*t.threshold) : json(nullptr)}});
            s["coverage_at"] = targets;
            json curve = json::array();
            for (const auto& p : c.points)
                curve.push_back({{"coverage", p.coverage}, {"risk", p.risk}, {"threshold", p.threshold}, {"images", p.kept}});
            s["curve"] = curve;
        }
        signals.push_back(s);
    }
    return signals;
}

// A classifier's deterministic class distribution's entropy (NaN for captions).
double predictionEntropy(OutputKind outputKind, const Trace& t) {
    if (!traitsOf(outputKind).labelsAreClasses || t.output.probs.empty()) return kNaN;
    return entropyOf(std::vector<double>(t.output.probs.begin(), t.output.probs.end()));
}

// Signals a word of a caption has (the others are the whole image's).
bool isWordSignal(AdequacySignal s) {
    return s == AdequacySignal::Agreement || s == AdequacySignal::OutputEntropy || s == AdequacySignal::LookSpread ||
           s == AdequacySignal::Confidence;
}

double adequacyKey(AdequacySignal signal, double value) {
    return signalInfo(signal).higherIsAdequate ? value : -value;
}

}  // namespace

const std::vector<AdequacySignalInfo>& adequacySignals() {
    static const std::vector<AdequacySignalInfo> signals = {
        {AdequacySignal::Agreement, "agreement", "agreement of sampled runs with the deterministic rule", "fraction", true},
        {AdequacySignal::OutputEntropy, "output-entropy", "entropy of the runs' outputs", "nats", false},
        {AdequacySignal::MutualInformation, "mutual-info", "mutual information of runs and output", "nats", false},
        {AdequacySignal::LookSpread, "look-spread", "spread of where the runs looked", "pixels", false},
        {AdequacySignal::Confidence, "confidence", "confidence of the deterministic rule", "probability", true},
        {AdequacySignal::PredictionEntropy, "prediction-entropy", "entropy of the deterministic rule's class distribution",
         "nats", false},
        {AdequacySignal::ShiftAgreement, "shift-agreement", "agreement of the answer under small seeded shifts", "fraction",
         true},
        {AdequacySignal::ShiftLook, "shift-look", "same most attended cell under small seeded shifts", "fraction", true},
    };
    return signals;
}

const AdequacySignalInfo& signalInfo(AdequacySignal signal) { return adequacySignals()[size_t(signal)]; }

std::optional<AdequacySignal> parseAdequacySignal(const std::string& key) {
    for (const auto& s : adequacySignals())
        if (key == s.key) return s.signal;
    return std::nullopt;
}

AdequacyValues adequacyOf(const RunSet& set, const RunStats& stats) {
    AdequacyValues v;
    v.values[int(AdequacySignal::Agreement)] = stats.runs ? stats.agreement : kNaN;
    std::vector<double> share;
    for (int c : stats.labelCounts) share.push_back(stats.runs ? double(c) / stats.runs : 0.0);
    v.values[int(AdequacySignal::OutputEntropy)] = stats.runs ? entropyOf(share) : kNaN;
    v.values[int(AdequacySignal::MutualInformation)] = mutualInformation(set);
    v.values[int(AdequacySignal::LookSpread)] = set.runs.empty() ? kNaN : lookSpread(set);
    v.values[int(AdequacySignal::Confidence)] = confidenceOf(set);
    v.values[int(AdequacySignal::PredictionEntropy)] = predictionEntropy(set.outputKind, set.deterministic);
    v.values[int(AdequacySignal::ShiftAgreement)] = kNaN;  // measured by the caller, with shifted copies
    v.values[int(AdequacySignal::ShiftLook)] = kNaN;
    return v;
}

std::vector<WordAdequacy> wordAdequacyOf(const RunSet& set) {
    std::vector<WordAdequacy> out;
    if (!traitsOf(set.outputKind).referenceScored) return out;
    const auto& det = set.deterministic;
    std::vector<std::vector<std::string>> runWords;
    for (const auto& run : set.runs) runWords.push_back(splitWords(run.text));
    const auto words = splitWords(det.output.text);
    for (size_t k = 0; k < words.size(); ++k) {
        WordAdequacy w;
        w.word = words[k];
        std::map<std::string, int> counts;  // the runs' words at this position ("" past their end)
        for (const auto& r : runWords) ++counts[k < r.size() ? r[k] : std::string()];
        const double n = double(set.runs.size());
        std::vector<double> share;
        for (const auto& [word, count] : counts) share.push_back(count / n);
        w.signals.values[int(AdequacySignal::Agreement)] = n > 0 ? counts[w.word] / n : kNaN;
        w.signals.values[int(AdequacySignal::OutputEntropy)] = n > 0 ? entropyOf(share) : kNaN;
        w.signals.values[int(AdequacySignal::MutualInformation)] = kNaN;
        w.signals.values[int(AdequacySignal::LookSpread)] = stepSpread(set, int(k));
        w.signals.values[int(AdequacySignal::Confidence)] =
            k < det.steps.size() && det.steps[k].token == w.word ? wordProbability(det, k) : kNaN;
        for (auto signal : {AdequacySignal::PredictionEntropy, AdequacySignal::ShiftAgreement, AdequacySignal::ShiftLook})
            w.signals.values[int(signal)] = kNaN;
        out.push_back(std::move(w));
    }
    return out;
}

bool isInadequate(AdequacySignal signal, double value, double threshold) {
    if (std::isnan(value) || std::isnan(threshold)) return false;
    return signalInfo(signal).higherIsAdequate ? value < threshold : value > threshold;
}

SignalCurve riskCoverage(AdequacySignal signal, const std::vector<double>& values, const std::vector<bool>& correct,
                         const std::vector<double>& targets) {
    SignalCurve curve;
    curve.signal = signal;
    const size_t n = values.size();
    if (n == 0 || correct.size() != n ||
        std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); })) {
        curve.available = false;
        return curve;
    }
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return adequacyKey(signal, values[a]) > adequacyKey(signal, values[b]);
    });
    double errorsBefore = 0, riskSum = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int groupErrors = 0;
        while (b < n && values[order[b]] == values[order[a]]) groupErrors += !correct[order[b++]];
        // Tied images are kept together; within the group errors are spread evenly (the expected
        // value over random tie-breaking), so the area does not depend on the input order.
        const double g = double(b - a);
        for (size_t j = 1; j <= b - a; ++j) riskSum += (errorsBefore + j * groupErrors / g) / double(a + j);
        errorsBefore += groupErrors;
        curve.points.push_back({std::int64_t(b), double(b) / n, errorsBefore / double(b), values[order[a]]});
        a = b;
    }
    curve.aurc = riskSum / double(n);
    for (double t : targets) curve.targets.push_back(coverageAt(curve, t));
    return curve;
}

CoverageAtTarget coverageAt(const SignalCurve& curve, double target) {
    CoverageAtTarget c;
    c.target = target;
    for (const auto& p : curve.points)
        if (1.0 - p.risk >= target - 1e-12 && p.kept > c.kept) {
            c.kept = p.kept;
            c.coverage = p.coverage;
            c.accuracy = 1.0 - p.risk;
            c.threshold = p.threshold;
        }
    return c;
}

namespace {

// One image's signals: from its run set, or (a model without sampled runs) from its deterministic
// trace; then the shift signals where shifts are measured.
Result<ImageAdequacy> imageAdequacy(AttentionModel& model, const Sample& sample, std::int64_t i, const std::string& id,
                                    const AdequacyReport& r, std::string& modelId) {
    const auto truth = sampleGroundTruth(sample);
    ImageAdequacy image;
    image.index = i;
    Trace deterministic;
    if (r.runs > 0) {
        auto set = model.sampleRuns(sample.image, r.runs, r.seed, id, truth, /*kSample=*/1);
        if (!set) return Error{"image " + std::to_string(i) + ": " + set.error()};
        modelId = set->modelId;
        image.signals = adequacyOf(*set, computeRunStats(*set));
        image.words = wordAdequacyOf(*set);
        deterministic = set->deterministic;
    } else {
        auto t = model.trace(sample.image, r.deploymentRule, r.seed, id, truth);
        if (!t) return Error{"image " + std::to_string(i) + ": " + t.error()};
        modelId = t->modelId;
        deterministic = *t;
        for (auto& v : image.signals.values) v = kNaN;  // the sampled signals are not measured
        const int label = t->output.label;
        image.signals.values[int(AdequacySignal::Confidence)] =
            label >= 0 && label < int(t->output.probs.size()) ? double(t->output.probs[size_t(label)]) : kNaN;
        image.signals.values[int(AdequacySignal::PredictionEntropy)] = predictionEntropy(r.outputKind, *t);
    }
    if (r.shifts > 0) {
        auto shift = measureShiftAgreement(model, sample.image, deterministic, r.deploymentRule, r.seed,
                                           seededShifts(r.seed, i, r.shifts, r.maxShift));
        if (!shift) return Error{"image " + std::to_string(i) + ", shifted: " + shift.error()};
        image.signals.values[int(AdequacySignal::ShiftAgreement)] = shift->answer;
        image.signals.values[int(AdequacySignal::ShiftLook)] = shift->look;
    }
    if (traitsOf(r.outputKind).referenceScored) {
        image.caption = deterministic.output.text;
        image.correct = std::find(truth.references.begin(), truth.references.end(), image.caption) != truth.references.end();
        std::vector<std::vector<std::string>> references;
        for (const auto& ref : truth.references) references.push_back(splitWords(ref));
        for (size_t k = 0; k < image.words.size(); ++k)
            image.words[k].correct = std::any_of(references.begin(), references.end(), [&](const auto& ref) {
                return k < ref.size() && ref[k] == image.words[k].word;
            });
    } else {
        image.truth = sample.label;
        image.prediction = deterministic.output.label;
        image.correct = image.prediction == image.truth;
    }
    return image;
}

}  // namespace

Result<AdequacyReport> measureAdequacy(AttentionModel& model, const Dataset& dataset, Split split,
                                       const AdequacyOptions& options, const Progress& progress) {
    const bool sampled = model.hasStochasticRuns();
    if (sampled && (options.runs < 2 || options.runs > 10000)) return Error{"--runs must be 2..10000 (signals compare runs)"};
    if (options.limit < 0) return Error{"the image limit must be 0 (all) or more"};
    if (options.shifts < -1 || options.shifts > 1000) return Error{"--shifts must be 0..1000"};
    if (options.maxShift < 1 || options.maxShift > 16) return Error{"--max-shift must be 1..16 pixels"};
    for (double t : options.targets)
        if (!(t > 0 && t <= 1)) return Error{"every target accuracy must be in (0, 1]"};
    if (auto fits = checkDatasetFits(dataset.info(), model.imageSize(), model.channels()); !fits)
        return Error{fits.error()};
    const std::int64_t size = dataset.size(split);
    const std::int64_t n = options.limit > 0 ? std::min(options.limit, size) : size;
    if (n == 0) return Error{"the " + std::string(splitName(split)) + " split of " + dataset.info().name + " is empty"};

    const auto start = std::chrono::steady_clock::now();
    AdequacyReport r;
    r.dataset = dataset.info().name;
    r.split = splitName(split);
    r.outputKind = model.outputKind();
    r.deploymentRule = model.deterministicRule();
    // Without sampled runs the answer is the one forward's under every rule: nothing differs.
    r.trainingRule = sampled ? traitsOf(model.trainedMode()).trainingRule : r.deploymentRule;
    r.runs = sampled ? options.runs : 0;
    r.shifts = options.shifts >= 0 ? options.shifts : sampled ? 0 : kDefaultShifts;
    r.maxShift = r.shifts > 0 ? options.maxShift : 0;
    r.seed = options.seed;
    const auto range = shardRange(options.shard, n);
    r.shard = options.shard;
    r.begin = range.begin;
    r.total = n;
    r.targets = options.targets;
    for (std::int64_t i = range.begin; i < range.end; ++i) {
        const std::string id = r.dataset + ":" + r.split + ":" + std::to_string(i);
        auto image = imageAdequacy(model, dataset.sample(split, i), i, id, r, r.modelId);
        if (!image) return Error{image.error()};
        r.images.push_back(std::move(image).value());
        if (progress && !progress(double(i + 1 - range.begin) / double(range.size())))
            return Error{"the adequacy measurement was cancelled"};
    }
    finishAdequacy(r, options.targets);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void finishAdequacy(AdequacyReport& r, const std::vector<double>& targets) {
    const auto n = std::int64_t(r.images.size());
    std::int64_t right = 0;
    for (const auto& im : r.images) right += im.correct;
    r.accuracy = n ? double(right) / double(n) : 0.0;
    r.curves.clear();
    r.wordCurves.clear();
    r.bestSignal.clear();

    std::vector<bool> correct;
    for (const auto& im : r.images) correct.push_back(im.correct);
    double best = INFINITY;
    for (const auto& info : adequacySignals()) {
        std::vector<double> values;
        for (const auto& im : r.images) values.push_back(im.signals[info.signal]);
        r.curves.push_back(riskCoverage(info.signal, values, correct, targets));
        if (r.curves.back().available && r.curves.back().aurc < best) {
            best = r.curves.back().aurc;
            r.bestSignal = info.key;
        }
    }
    if (traitsOf(r.outputKind).referenceScored) {
        std::vector<bool> wordRight;
        for (const auto& im : r.images)
            for (const auto& w : im.words) wordRight.push_back(w.correct);
        r.wordAccuracy = wordRight.empty() ? 0.0
                                           : double(std::count(wordRight.begin(), wordRight.end(), true)) / wordRight.size();
        for (const auto& info : adequacySignals()) {
            std::vector<double> values;
            for (const auto& im : r.images)
                for (const auto& w : im.words) values.push_back(w.signals[info.signal]);
            r.wordCurves.push_back(riskCoverage(info.signal, values, wordRight, targets));
        }
    }
    // Every wrong answer ranked last: risk 0 until the errors, then (k - right) / k.
    double oracle = 0;
    for (std::int64_t k = right + 1; k <= n; ++k) oracle += double(k - right) / double(k);
    r.oracleAurc = n ? oracle / double(n) : 0.0;
    r.randomAurc = 1.0 - r.accuracy;
}

std::string adequacyReportToJson(const AdequacyReport& r, int indent) {
    using nlohmann::json;
    json j;
    j["schema"] = "saccade.adequacy";
    j["version"] = 1;
    j["model"] = r.modelId;
    j["dataset"] = r.dataset;
    j["split"] = r.split;
    j["output_kind"] = outputKindName(r.outputKind);
    j["images"] = r.images.size();
    j["runs"] = r.runs;
    j["seed"] = r.seed;
    j["run_seeds"] = r.runs > 0 ? json("every image: seeds " + std::to_string(r.seed) + ".." +
                                       std::to_string(r.seed + r.runs - 1))
                                : json(nullptr);
    j["shifts"] = r.shifts;
    j["max_shift"] = r.maxShift;
    j["shift_seeds"] = r.shifts > 0 ? json("image i: offsets drawn from seed " + std::to_string(r.seed) + " and i")
                                    : json(nullptr);
    j["training_rule"] = r.trainingRule;
    j["deployment_rule"] = r.deploymentRule;
    j["deployment_differs_from_training"] = r.deploymentDiffers();
    if (r.deploymentDiffers())
        j["note"] = "accuracy and risk are the " + r.deploymentRule + " rule's; the model was trained under " +
                    r.trainingRule;
    j["accuracy"] = r.accuracy;
    j["oracle_aurc"] = r.oracleAurc;
    j["random_aurc"] = r.randomAurc;
    j["best_signal"] = r.bestSignal.empty() ? json(nullptr) : json(r.bestSignal);
    j["seconds"] = r.seconds;
    const json signals = signalsJson(r.curves);
    j["signals"] = signals;
    if (!r.wordCurves.empty()) {
        j["word_accuracy"] = r.wordAccuracy;
        j["word_signals"] = signalsJson(r.wordCurves);
    }
    json images = json::array();
    for (const auto& im : r.images) {
        json e = {{"index", im.index}, {"correct", im.correct}};
        if (traitsOf(r.outputKind).referenceScored)
            e["caption"] = im.caption;
        else {
            e["truth"] = im.truth;
            e["prediction"] = im.prediction;
        }
        for (const auto& info : adequacySignals()) e[info.key] = numberOrNull(im.signals[info.signal]);
        if (!im.words.empty()) {
            json words = json::array();
            for (const auto& w : im.words) {
                json wj = {{"word", w.word}, {"correct", w.correct}};
                for (const auto& info : adequacySignals())
                    if (isWordSignal(info.signal)) wj[info.key] = numberOrNull(w.signals[info.signal]);
                words.push_back(wj);
            }
            e["words"] = words;
        }
        images.push_back(e);
    }
    j["per_image"] = images;
    if (r.shard.active()) {
        j["shard"] = shardHeader("adequacy", r.shard, r.begin, r.begin + std::int64_t(r.images.size()), r.total,
                                 r.fingerprint);
        j["targets"] = r.targets;
    }
    return j.dump(indent);
}

Result<AdequacyReport> adequacyImagesFromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("schema", "") != "saccade.adequacy")
        return Error{"not an adequacy measurement (schema saccade.adequacy)"};
    auto number = [](const nlohmann::json& v) { return v.is_null() ? std::nan("") : v.get<double>(); };
    try {
        AdequacyReport r;
        r.modelId = j.at("model");
        r.dataset = j.at("dataset");
        r.split = j.at("split");
        auto kind = parseOutputKind(j.at("output_kind").get<std::string>());
        if (!kind) return Error{"output_kind: " + kind.error()};
        r.outputKind = *kind;
        r.runs = j.at("runs");
        r.shifts = j.value("shifts", 0);
        r.maxShift = j.value("max_shift", 0);
        r.seed = j.at("seed");
        r.trainingRule = j.at("training_rule");
        r.deploymentRule = j.at("deployment_rule");
        r.seconds = j.at("seconds");
        if (j.contains("targets")) r.targets = j.at("targets").get<std::vector<double>>();
        for (const auto& e : j.at("per_image")) {
            ImageAdequacy im;
            im.index = e.at("index");
            im.correct = e.at("correct");
            if (traitsOf(r.outputKind).referenceScored) {
                im.caption = e.at("caption");
            } else {
                im.truth = e.at("truth");
                im.prediction = e.at("prediction");
            }
            for (const auto& info : adequacySignals())  // a signal newer than the file: not measured
                im.signals.values[int(info.signal)] = e.contains(info.key) ? number(e.at(info.key)) : std::nan("");
            if (e.contains("words"))
                for (const auto& wj : e.at("words")) {
                    WordAdequacy w;
                    w.word = wj.at("word");
                    w.correct = wj.at("correct");
                    for (const auto& info : adequacySignals())
                        w.signals.values[int(info.signal)] =
                            isWordSignal(info.signal) ? number(wj.at(info.key)) : std::nan("");
                    im.words.push_back(w);
                }
            r.images.push_back(std::move(im));
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("a damaged adequacy measurement: ") + firstLine(e.what())};
    }
}

}  // namespace saccade
