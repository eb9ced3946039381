#pragma once
// AttentionModel: what the CLI and the GUI need of any loaded image model (every family that reads
// images, and imports), behind plain types: its card, traces under a rule and seed, and evaluation
// under rules. What it outputs and how it was trained are types (trace/output_kind.h).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace/run_set.h"
#include "common/progress.h"
#include "common/result.h"
#include "common/shard.h"
#include "metrics/caption_metrics.h"
#include "data/dataset.h"
#include "data/image.h"
#include "data/image_fit.h"
#include "io/checkpoint.h"
#include "trace/trace.h"
#include "trace/output_kind.h"
#include "metrics/accuracy.h"
#include "models/input_overrides.h"

namespace saccade {

class GradientForward;  // models/gradient_forward.h

/// A captioner's figures under one rule (see models/caption/caption_eval.h for their definitions).
struct CaptionRuleReport {
    std::string rule;
    double bleu[4] = {0, 0, 0, 0};
    double exactMatch = 0;
    /// Per word class (size, colour, shape, relation; "objects" = size + colour + shape): mean
    /// attention mass in the named object's box, hit rate of the chosen (or argmax) cell, words.
    struct Correctness {
        std::string wordClass;
        double mass = 0, hitRate = 0;
        std::int64_t words = 0;
    };
    std::vector<Correctness> attention;
    /// Per object size (small, large) the scenes held: the object words naming an object of that
    /// size (their attention's mass in its box and hit rate; words 0 when none was said), and how
    /// many of those objects the caption named in full.
    struct SizeFigures {
        std::string size;
        double mass = 0, hitRate = 0;
        std::int64_t words = 0, hits = 0, named = 0, objects = 0;
    };
    std::vector<SizeFigures> bySize;
    CaptionScores counts;  ///< what the figures are made of (a shard's JSON carries it)
};

/// The report of one caption rule from its scores: BLEU, exact match, and attention correctness
/// per word class (size, colour, shape, relation) and over the object words.
CaptionRuleReport captionRuleReport(const CaptionScores& scores);

/// An evaluation under several rules. Classifiers: accuracy per rule. Captioners: accuracy is the
/// exact-match rate (the caption is one of the image's references), predictions index
/// `outputNames` (the distinct captions), and `captions` holds BLEU and attention correctness.
struct EvalReport {
    std::string dataset, split;
    TrainingMode trainedMode = TrainingMode::Soft;
    OutputKind outputKind = OutputKind::Class;
    std::vector<RuleAccuracy> rules;
    std::vector<int> labels;                    ///< per image, the true class (-1 for captions)
    std::vector<std::vector<int>> predictions;  ///< per rule, per image, the output class or caption
    std::vector<std::string> outputNames;       ///< captioners: caption text by prediction id
    std::vector<std::vector<int>> correct;      ///< captioners: per rule, per image, 1 if exact
    std::vector<CaptionRuleReport> captions;    ///< captioners: per rule
    double seconds = 0;
    /// A sharded run (--shard i/N): its slice, the images [begin, end) of the `total` that the
    /// whole run evaluates, and what every shard of the run must share (the model, data, rules,
    /// seed and limit), set by the caller. The JSON then carries what `merge` needs.
    Shard shard;
    std::int64_t begin = 0, total = 0;
    std::string fingerprint;
};

/// The seed image `index` of a split is evaluated with under every stochastic rule: its figure
/// under sample (or gumbel:TAU) is exactly trace(image, rule, evaluationSeed(seed, index)), so a
/// case listed by an evaluation opens with the same answer. ksample:K averages K such draws.
inline std::uint64_t evaluationSeed(std::uint64_t seed, std::int64_t index) {
    return seed + static_cast<std::uint64_t>(index);
}

/// Parses a comma-separated list of evaluation rules: soft, sample, argmax, mean, random,
/// ksample:K, gumbel:TAU, beam:K (captioners), forward (imported models), attention, rollout and
/// head:K (transformers). Which of them a model supports is for the model to say.
Result<std::vector<std::string>> parseEvalRules(const std::string& commaList);

/// JSON of an evaluation; a sharded one adds "shard" (shardHeader) and, for captioners,
/// "caption_counts": what `saccade-cli merge` sums.
std::string evalReportToJson(const EvalReport& report, int indent = 2);

/// What the GUI's rule box offers for a model: its rule names in order (the deterministic one
/// among them), and the range of a rule's parameter where the model bounds it (topk: 1 to the
/// cells; head: 0 to the heads - 1).
struct RuleMenu {
    std::vector<std::string> rules;
    std::map<std::string, std::pair<int, int>> ranges;
};

/// A model's grid of cells, where it attends over one: its side, scorer and variant.
struct CellGrid {
    int side = 0;  ///< 0: no grid of its own (a RAM's glimpses, a transformer's patches)
    std::string scorer, variant;
};

class AttentionModel {
public:
    virtual ~AttentionModel() = default;

    virtual const CheckpointInfo& info() const = 0;
    virtual std::string deviceName() const = 0;
    virtual std::vector<std::string> classNames() const = 0;  ///< from the sidecar's dataset
    virtual int imageSize() const = 0;  ///< square inputs of this side
    virtual int channels() const = 0;
    virtual int steps() const = 0;      ///< attention steps or glimpses per run
    /// How it was trained: soft, hard, gumbel (patch, caption, ViT), reinforce (RAM) or imported.
    virtual TrainingMode trainedMode() const = 0;
    /// The deterministic rule: "argmax" (patch, captioner), "mean" (RAM), "attention" (ViT) or an
    /// import's own ("forward", "caption").
    virtual std::string deterministicRule() const = 0;
    /// A one-line description of the architecture for model cards.
    virtual std::string summary() const = 0;
    /// What a run outputs: a class (classifiers) or a caption (a word per step: TraceStep::token,
    /// outputProbs over the vocabulary in classNames(), TraceOutput::text the caption).
    virtual OutputKind outputKind() const { return OutputKind::Class; }
    /// Words drawn at this temperature where a run draws its words (0: the most probable word);
    /// a model that draws none accepts 0 alone.
    virtual Result<Unit> setWordTemperature(double t) {
        if (t != 0) return Error{"--word-temperature applies to captioners only (Saccade's own): " + displayName() + " has no word temperature"};
        return Unit{};
    }
    /// Whether sampleRuns and the sample rule exist (not for transformers, nor for imported
    /// models without forward_sampled): views that need runs say so, sweeps go without them.
    virtual bool hasStochasticRuns() const { return true; }
    /// The evaluation rules this model accepts, the deterministic one first.
    virtual std::vector<std::string> evaluationRules() const { return {}; }
    /// The rules the GUI offers for it (by default its deterministic rule alone).
    virtual RuleMenu ruleMenu() const { return {{deterministicRule()}, {}}; }
    /// The rule it opens under: the one it was trained with where it offers it (a soft model:
    /// soft; a hard or REINFORCE one: sample), else its deterministic rule.
    std::string trainingRule() const;
    /// The rule it is shown with when nothing is drawn: soft for a soft-trained model that offers
    /// it, else its deterministic rule (argmax, mean, or an import's own).
    std::string unsampledRule() const;
    /// How a model list names it: "soft patch model, translated-fashion60" (by default its summary).
    virtual std::string displayName() const { return summary(); }
    /// One line a user should read before trusting the model's views (an import whose outputs are
    /// exactly uniform on the probe: a head initialised at zero); empty: none.
    virtual std::string warning() const { return {}; }
    /// Its grid of cells, where it has one.
    virtual CellGrid cellGrid() const { return {}; }
    /// A forward that autograd can differentiate with respect to the pixels (and the model's
    /// convolutional grid, where it has one), for attribution methods (analysis/attribution.h);
    /// null where the model has none. Owned by the model, valid while it lives.
    virtual GradientForward* gradientForward() { return nullptr; }
    /// A model that outputs words (a caption): word `step` of the caption `words` (classNames()
    /// entries; a closing "<end>" may end them) as a classifier of the image, for attribution
    /// methods: its logits(images, rule) are the word logits [B, vocabulary] at that step, the
    /// decoder teacher-forced on words[0, step) and attending under `rule` (a deterministic rule of
    /// the model; empty: the one it decodes with, evaluationRules().front(), its defaultRule()). Step
    /// words.size() is the word after the last. The forward shares the model's weights: valid
    /// while the model lives; not thread-safe, as the model. Errors, one line: a step outside
    /// [0, words.size()], a word not in the vocabulary or after "<end>", a rule it cannot
    /// differentiate, a model that does not output words (the default).
    virtual Result<std::shared_ptr<GradientForward>> wordForward(const std::vector<std::string>& words, int step,
                                                                 const std::string& rule) {
        (void)words;
        (void)step;
        (void)rule;
        return Error{displayName() + " outputs a " + outputKindName(outputKind()) + ", not words: it has no word steps"};
    }
    /// How an image of another size becomes this model's input (data/image_fit.h): what the user
    /// set (setImageFit), else the model's own declaration, else the shorter side resized to
    /// imageSize() and the centre cropped square.
    ImageFit imageFit() const { return m_fit ? *m_fit : declaredFit(); }
    /// Sets the fit; its crop must be imageSize() square (checked by loadAttentionModel).
    void setImageFit(const ImageFit& fit) { m_fit = fit; }
    /// Everything done to an image before the model sees it, in words: the fit, then any
    /// normalisation ("resize 256, centre crop 224; normalised: imagenet (...)").
    virtual std::string preprocessing() const { return describeFit(imageFit()); }

    /// One run on one image under `rule` and seed. The image must match imageSize() and
    /// channels(). Not thread-safe: one caller at a time.
    virtual Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed,
                                const std::string& imageId,
                                const std::optional<GroundTruth>& truth = std::nullopt) = 0;

    /// Per image, the class probabilities trace(image, rule, seed, ...) would give: occluded and
    /// shifted copies of one image in one call. Models batch them on the device where they can;
    /// by default one trace per image. Not thread-safe, as trace().
    virtual Result<std::vector<std::vector<float>>> outputProbs(const std::vector<Image>& images,
                                                                const std::string& rule, std::uint64_t seed);

    /// `runs` sample-rule runs of one image, batched on the device in chunks (run i repeats
    /// trace(image, "sample", runSeed(seed, i))), with the deterministic run, soft attention where
    /// the model has it, and ksample:`kSample`. Progress after each chunk; false cancels.
    virtual Result<RunSet> sampleRuns(const Image& image, int runs, std::uint64_t seed, const std::string& imageId,
                                      const std::optional<GroundTruth>& truth, int kSample = 10,
                                      const Progress& progress = {}) = 0;

    /// Accuracy under each rule on the first `limit` images of `split` (0: all).
    /// With `shard`, only its slice of those images (shardRange with the model's batch): the
    /// per-image results are the unsharded run's.
    virtual Result<EvalReport> evaluate(const Dataset& dataset, Split split,
                                        const std::vector<std::string>& rules, std::int64_t limit,
                                        std::uint64_t seed, const Progress& progress = {},
                                        const Shard& shard = {}) = 0;

protected:
    /// The fit the model declares itself (an imported model's resize and center_crop).
    virtual ImageFit declaredFit() const { return squareFit(imageSize()); }

private:
    std::optional<ImageFit> m_fit;
};

/// What sampleRuns shares between the models: checks, the header, chunks of at most 1,000 runs
/// (`chunk(firstSeed, count)` runs them batched), progress, and the deterministic, soft (when
/// `softRule` is not empty) and ksample traces.
using RunChunk = std::function<Result<std::vector<RunRecord>>(std::uint64_t firstSeed, int count)>;
Result<RunSet> collectRuns(AttentionModel& model, const Image& image, int runs, std::uint64_t seed,
                           const std::string& imageId, const std::optional<GroundTruth>& truth, int kSample,
                           const std::string& softRule, const RunChunk& chunk, const Progress& progress);

/// Loads any checkpoint by the model type in its sidecar, on `device` ("auto", "cpu", "cuda:N");
/// a file without a Saccade sidecar is opened as a TorchScript model (models/script/script_model.h).
/// `input` sets the resize, crop and normalisation over the model's own (models/input_overrides.h):
/// a Saccade checkpoint takes a resize and a crop of its own input size, and no normalisation.
Result<std::shared_ptr<AttentionModel>> loadAttentionModel(const std::string& path,
                                                           const std::string& device = "auto",
                                                           const InputOverrides& input = {});

}  // namespace saccade
