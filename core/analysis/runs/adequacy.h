#pragma once
// Inadequate observations: per-image signals that need no ground truth, computed from a run set
// (N seeded sampled runs against the deterministic rule), and risk-coverage curves that show how
// well each signal sorts the deterministic rule's right answers from its wrong ones on a test
// split. Shared by `saccade-cli adequacy`, the Adequacy tab and the Attention page's mark.
//
// Signals (each image's value; "adequate" is the side an abstaining deployment keeps):
//   agreement      fraction of sampled runs whose output equals the deterministic rule's (higher)
//   output-entropy entropy of the runs' output histogram, nats (lower)
//   mutual-info    entropy of the runs' mean prediction minus their mean entropy, nats (lower;
//                  classifiers only: a captioner's runs have no common output distribution)
//   look-spread    mean over steps of the spread (RMS distance from the mean, pixels) of where
//                  the runs looked (lower)
//   confidence     the deterministic rule's softmax probability of its output; captioners: the
//                  geometric mean of its words' probabilities (higher; the baseline signal)
//   prediction-entropy  entropy of the deterministic rule's class distribution, nats (lower;
//                  classifiers only)
//   shift-agreement  fraction of small seeded shifts of the image (analysis/shift_agreement.h)
//                  whose deterministic answer is the unshifted one (higher)
//   shift-look     fraction of those shifts whose most attended cell, shifted back, is the
//                  unshifted one, over steps (higher)
//
// The first four need sampled runs; a model without them (hasStochasticRuns() false: a
// transformer, an imported model without forward_sampled) gets the last four, measured from its
// deterministic traces alone. The shift signals are measured where shifts > 0 (by default on
// models without sampled runs only).
//
// Captioners also get the signals per word of the deterministic caption: agreement (runs with the
// same word at that position), entropy of the runs' words there, spread of where they looked at
// that step, and the word's probability; a word is right when some valid caption has it there.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "models/attention_model.h"
#include "trace/run_set.h"

namespace saccade {

enum class AdequacySignal {
    Agreement,
    OutputEntropy,
    MutualInformation,
    LookSpread,
    Confidence,
    PredictionEntropy,
    ShiftAgreement,
    ShiftLook
};
constexpr int kAdequacySignalCount = 8;

struct AdequacySignalInfo {
    AdequacySignal signal;
    const char* key;    ///< JSON and CLI name, e.g. "agreement"
    const char* label;  ///< for people, e.g. "agreement with argmax"
    const char* unit;   ///< "fraction", "nats", "pixels", "probability"
    bool higherIsAdequate;
};

/// The signals in a fixed order (the index is the enum's value).
const std::vector<AdequacySignalInfo>& adequacySignals();
const AdequacySignalInfo& signalInfo(AdequacySignal signal);
/// By key; nullopt for an unknown name.
std::optional<AdequacySignal> parseAdequacySignal(const std::string& key);

/// One image's signal values (NaN where a signal does not apply to the model).
struct AdequacyValues {
    double values[kAdequacySignalCount] = {0, 0, 0, 0, 0, 0, 0, 0};
    double operator[](AdequacySignal s) const { return values[int(s)]; }
};

/// The signals of one image from its run set and statistics (the shift signals NaN: the caller
/// measures them).
AdequacyValues adequacyOf(const RunSet& set, const RunStats& stats);

/// True when `value` lies on the inadequate side of `threshold` (strictly): below it for
/// higher-is-adequate signals, above it for the others. NaN is never flagged.
bool isInadequate(AdequacySignal signal, double value, double threshold);

/// One word of a captioner's deterministic caption (mutual information is NaN: per word there is
/// no distribution shared by the runs).
struct WordAdequacy {
    std::string word;
    bool correct = false;  ///< some valid caption has this word at this position
    AdequacyValues signals;
};

/// Per word of the deterministic caption (captioners; empty for classifiers). `correct` is left
/// false: the caller judges words against the references.
std::vector<WordAdequacy> wordAdequacyOf(const RunSet& set);

struct ImageAdequacy {
    std::int64_t index = 0;  ///< position in the split
    int truth = -1;          ///< classifiers: the true class
    int prediction = -1;     ///< classifiers: the deterministic rule's class
    std::string caption;     ///< captioners: the deterministic rule's caption
    bool correct = false;    ///< the deterministic rule's output is right (a valid caption)
    AdequacyValues signals;
    std::vector<WordAdequacy> words;  ///< captioners: per word of the deterministic caption
};

/// A point of a risk-coverage curve: keeping the `kept` most adequate images by the signal
/// (those with a value at least as adequate as `threshold`).
struct RiskCoveragePoint {
    std::int64_t kept = 0;
    double coverage = 0, risk = 0, threshold = 0;
};

/// The largest coverage a threshold on the signal reaches with accuracy >= target (coverage 0
/// and no threshold when no threshold does).
struct CoverageAtTarget {
    double target = 0;
    double coverage = 0, accuracy = 0;
    std::int64_t kept = 0;
    std::optional<double> threshold;
};

struct SignalCurve {
    AdequacySignal signal = AdequacySignal::Agreement;
    bool available = true;  ///< false when the model has no value for it (then nothing else is set)
    /// One point per distinct value (tied images are kept or abstained on together).
    std::vector<RiskCoveragePoint> points;
    /// Area under the risk-coverage curve: the mean over k = 1..n of the risk of the k most
    /// adequate images, ties broken at random in expectation (lower is better).
    double aurc = 0;
    std::vector<CoverageAtTarget> targets;
};

/// The curve of one signal over images (values as the signal defines them; NaN values make the
/// signal unavailable).
SignalCurve riskCoverage(AdequacySignal signal, const std::vector<double>& values, const std::vector<bool>& correct,
                         const std::vector<double>& targets);

/// Coverage at one target accuracy on a computed curve.
CoverageAtTarget coverageAt(const SignalCurve& curve, double target);

struct AdequacyOptions {
    std::int64_t limit = 500;  ///< first images of the split (0: all)
    int runs = 100;            ///< sampled runs per image (seeds seed..seed+runs-1 on every image)
    /// Shifted copies per image for the shift signals; -1: kDefaultShifts on models without
    /// sampled runs, 0 (not measured) on the others.
    int shifts = -1;
    int maxShift = 2;  ///< the largest offset of a copy, pixels per axis (1..16)
    std::uint64_t seed = 1;
    std::vector<double> targets = {0.95, 0.99};
    Shard shard;  ///< only this slice of the images (each image's signals are its own)
};

struct AdequacyReport {
    std::string modelId, dataset, split;
    OutputKind outputKind = OutputKind::Class;
    std::string trainingRule, deploymentRule;  ///< deployment: the deterministic rule
    int runs = 0;  ///< 0: the model has no sampled runs (the sampled signals are not measured)
    int shifts = 0, maxShift = 0;  ///< shifted copies per image (0: not measured) and their largest offset
    std::uint64_t seed = 0;
    double accuracy = 0;  ///< the deterministic rule at full coverage
    std::vector<ImageAdequacy> images;
    std::vector<SignalCurve> curves;  ///< in adequacySignals() order
    /// Captioners: the same over every word of every deterministic caption (empty otherwise).
    std::vector<SignalCurve> wordCurves;
    double wordAccuracy = 0;  ///< captioners: the share of right words
    double oracleAurc = 0;  ///< the best any signal could reach (every wrong answer ranked last)
    double randomAurc = 0;  ///< a signal that knows nothing: the risk at full coverage
    std::string bestSignal;  ///< the available signal with the lowest AURC
    double seconds = 0;

    bool deploymentDiffers() const { return trainingRule != deploymentRule; }
    /// A sharded measurement: its slice, the images [begin, begin + images) of `total`, the
    /// targets, and what every shard of the run must share (set by the caller).
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::vector<double> targets;
    std::string fingerprint;
};

constexpr int kDefaultShifts = 8;

/// Runs options.runs sampled runs (a model without them: its deterministic trace) and
/// options.shifts shifted copies on each of the first options.limit images of `split` and
/// measures every signal and curve. Progress after each image; false cancels.
Result<AdequacyReport> measureAdequacy(AttentionModel& model, const Dataset& dataset, Split split,
                                       const AdequacyOptions& options, const Progress& progress = {});

/// The figures that come from the images: the accuracy, every signal's curve (per image and, for
/// captioners, per word), the best signal, and the oracle and random references.
void finishAdequacy(AdequacyReport& report, const std::vector<double>& targets);

/// JSON (schema "saccade.adequacy", version 1): the header, per signal the curve, aurc and the
/// coverage at each target, the oracle and random references, and every image's values.
std::string adequacyReportToJson(const AdequacyReport& report, int indent = 2);
/// The header and images back from the JSON (curves are recomputed by finishAdequacy); for merging.
Result<AdequacyReport> adequacyImagesFromJson(const std::string& json);

}  // namespace saccade
