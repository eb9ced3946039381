#pragma once
// The family registry: everything Saccade knows about one kind of model, in one registration.
// A family declares its name (the sidecar's model type), what it trains on, the fields its
// training takes (the GUI builds its form from them and the CLI its `train NAME` options), how to
// train, build, open and describe it, and what its evaluation figures mean. Every place that used
// to branch on the model type asks the registry instead. The built-in families live in
// core/models/<family>/ and are listed once in models/builtin_families.cpp; a test or a plug-in
// registers its own with registerFamily().
// Engine header: includes LibTorch.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <torch/nn/module.h>

#include "attention/qkv_capture.h"
#include "common/result.h"
#include "models/cost_profile.h"
#include "models/input_overrides.h"
#include "models/translator.h"
#include "train/train_options.h"
#include "train/train_progress.h"
#include "trace/output_kind.h"

namespace saccade {

class AttentionModel;
class CostRun;

/// One field of a family's training form and of its `train NAME` command (`--key`).
struct FamilyField {
    enum class Kind { Integer, Real, Choice, Flag, Text };
    std::string key;    ///< the option's name without dashes ("entropy-bonus"); the settings key
    std::string label;  ///< the form's label ("Entropy bonus:")
    Kind kind = Kind::Integer;
    double min = 0, max = 0;           ///< Integer and Real: the accepted range
    std::vector<std::string> choices;  ///< Choice: the accepted values
    std::string value;                 ///< the default, as text ("" for none: a Text field left out)
    std::string help;                  ///< the option's help and the form's tooltip
    /// Applies only while field `whenKey` holds one of `whenValues` (e.g. mode = hard); the form
    /// disables it otherwise and the re-create command leaves it out.
    std::string whenKey;
    std::vector<std::string> whenValues;
    bool inForm = true;     ///< shown on the Training page (false: the CLI only, e.g. widths)
    bool recorded = true;   ///< part of the re-create command when it applies
    bool optional = false;  ///< may be left empty ("" = the family decides)
    bool excludesResume = false;  ///< starts a run from other weights: not with --resume
};

/// A family's settings: field key -> value as text (flags "true" or "false").
using FamilySettings = std::map<std::string, std::string>;

/// What one training run takes: the options every trainer shares, the data and the family's own.
struct FamilyTrainRequest {
    TrainCommonOptions common;
    std::string dataset;
    FamilySettings settings;  ///< every field of the family, defaults filled in
};

using TrainProgressCallback = std::function<bool(const TrainProgress&)>;

/// Reads a family's settings for its trainer: each key must be one of the family's fields (a key
/// that is not is a programming error: std::logic_error naming it, never a silent "" or 0), and
/// every read is recorded, so a test proves that the fields and the code that reads them agree.
class SettingsReader {
public:
    explicit SettingsReader(const FamilySettings& settings) : m_settings(settings) {}
    std::int64_t integer(const std::string& key);
    /// An optional Integer field: nothing when left empty (the family decides).
    std::optional<std::int64_t> optionalInteger(const std::string& key);
    double real(const std::string& key);
    bool flag(const std::string& key);
    const std::string& text(const std::string& key);
    /// A `mode` field: soft, hard or gumbel.
    TrainingMode attentionMode(const std::string& key);
    /// The keys read so far.
    const std::set<std::string>& read() const { return m_read; }

private:
    const FamilySettings& m_settings;
    std::set<std::string> m_read;
};

/// How a family's TrainProgress reads: the names of its three held-out figures ("" when unused),
/// of its training accuracy and its right axis, and whether it has BLEU, mass and entropy.
struct FamilyProgressNames {
    std::string evalSoft = "eval soft", evalArgmax = "eval argmax", evalSample = "eval sample";
    std::string trainAccuracy = "batch acc.", accuracyAxis = "accuracy";
    bool bleuAndMass = false;  ///< evalBleu4 and evalAttention are set
    bool entropy = true;       ///< the attention entropy is part of its loss
    bool reward = false;       ///< always REINFORCE (else only under mode = hard)
};

/// What a model read while its attention layers were recorded (ModelFamily::recordAttentionInputs).
struct RecordedInputs {
    std::string dataset;                 ///< image models: the dataset whose test images it read
    std::vector<std::string> sentences;  ///< text models: the sentences it read, as text
    std::vector<std::vector<std::string>> tokens;  ///< and as the tokens its positions hold
    /// With the decoder recorded: per sentence, the tokens its decoder's positions read ("<s>" and
    /// the model's own translation but its last token), as the Sequences page's decoder maps.
    std::vector<std::vector<std::string>> decoderTokens;
};

/// What to record (ModelFamily::recordAttentionInputs).
struct AttentionRecordRequest {
    std::int64_t count = 40;  ///< the first `count` inputs
    std::string need;         ///< what the queries and keys are for, for a refusal's line
    /// "" or the model's own data: its test split. Else, image models: a dataset name or an image
    /// folder, fitted to the model; text models: a text file of sentences, one per line.
    std::string dataset;
    /// Also the decoder's causal self-attention and its cross-attention (QkvKind), recorded on
    /// the model's own translation of each sentence, teacher-forced as the Sequences page draws it.
    bool decoder = false;
};

/// Its attention layers' queries, keys and values on those inputs, as a QkvCapture recorded them.
struct AttentionRecording {
    std::vector<QkvCapture::Layer> layers;
    RecordedInputs inputs;
};

/// What every family is called (ModelFamily's constructor takes it: no family goes without).
struct FamilyNames {
    std::string name;         ///< the sidecar's model type and `train NAME`: "patch"
    std::string title;        ///< "patch-attention classifier" (the Training page's list)
    std::string noun;         ///< "a patch classifier" (errors)
    std::string description;  ///< the help of `train NAME`
};

using ImageOpener = std::function<Result<std::shared_ptr<AttentionModel>>(const std::string& path, const std::string& device)>;
using TextOpener = std::function<Result<std::shared_ptr<const Translator>>(const std::string& path, const std::string& device)>;

/// How a family opens its files, at least one way (ModelFamily's constructor takes it). Each
/// maker takes a callable of the right kind: a null, or one that opens the other kind of model,
/// does not compile.
struct FamilyOpeners {
    template <typename Open>
    static FamilyOpeners images(Open open) {
        checkOpener<Open, ImageOpener>();
        return {ImageOpener(std::move(open)), {}, {}};
    }
    /// `openElsewhere`: where an image command is told to go instead ("reads text, not images: ...").
    template <typename OpenText>
    static FamilyOpeners text(OpenText openText, std::string openElsewhere) {
        checkOpener<OpenText, TextOpener>();
        return {{}, TextOpener(std::move(openText)), std::move(openElsewhere)};
    }
    template <typename Open, typename OpenText>
    static FamilyOpeners both(Open open, OpenText openText) {
        checkOpener<Open, ImageOpener>();
        checkOpener<OpenText, TextOpener>();
        return {ImageOpener(std::move(open)), TextOpener(std::move(openText)), {}};
    }

    ImageOpener open;
    TextOpener openText;
    std::string openElsewhere;

private:
    template <typename F, typename Function>
    static constexpr void checkOpener() {
        static_assert(!std::is_same_v<std::decay_t<F>, std::nullptr_t>, "a family's opener cannot be null");
        static_assert(std::is_constructible_v<Function, F>, "this opener opens another kind of model");
    }
};

struct ModelFamily {
    /// The names and an opener are required: a family without them does not compile.
    ModelFamily(FamilyNames names, FamilyOpeners openers)
        : name(std::move(names.name)), title(std::move(names.title)), noun(std::move(names.noun)),
          description(std::move(names.description)), open(std::move(openers.open)),
          openElsewhere(std::move(openers.openElsewhere)), openText(std::move(openers.openText)) {}

    std::string name;           ///< the sidecar's model type and `train NAME`: "patch"
    std::string title;          ///< "patch-attention classifier" (the Training page's list)
    std::string noun;           ///< "a patch classifier" (errors)
    std::string description;    ///< the help of `train NAME`
    bool readsText = false;     ///< sequence models: opened on the Sequences page, not Attention
    bool opensImports = false;  ///< opens files without a Saccade sidecar (TorchScript); trains nothing
    std::string datasetKey = "dataset";  ///< the CLI option that names the data ("task" for seq)
    std::string evalCountKey = "eval-images";  ///< the CLI option for TrainCommonOptions::evalImages
    std::function<std::vector<std::string>()> datasets;  ///< what it trains on, in the form's order (empty: defaultDataset)
    std::string defaultDataset;
    TrainCommonOptions defaults;        ///< its batch, learning rate and evaluation cadence
    std::vector<FamilyField> fields;
    FamilyProgressNames progress;
    /// Whether a run with these settings learns by REINFORCE (reward and baseline on its chart);
    /// empty: progress.reward says for every run.
    std::function<bool(const FamilySettings&)> reinforced;
    /// The field whose value joins the family and dataset in a run's default file name ("mode"
    /// gives patch-hard-translated-fashion60.pt), or "" for none.
    std::string fileTagKey;
    /// Trains from a complete request (checkSettings passed). Set with setTrainer, with readSettings.
    std::function<Result<TrainSummary>(const FamilyTrainRequest&, const TrainProgressCallback&)> train;
    /// Reads the request's settings as `train` does, without training (setTrainer sets both).
    std::function<void(const FamilyTrainRequest&, SettingsReader&)> readSettings;
    /// The console's per-iteration and per-evaluation figures (may be empty: none).
    std::function<std::string(const TrainProgress&, const FamilySettings&)> progressLine, evaluationLine;
    /// The network a sidecar's config (JSON text) describes, weights not loaded.
    std::function<Result<std::shared_ptr<torch::nn::Module>>(const std::string& configJson)> network;
    /// Moves settings that cannot hold for `dataset` to ones that do (a ViT's patch must divide
    /// the image side); the Training page calls it when the dataset changes. May be empty.
    std::function<void(FamilySettings&, const std::string& dataset)> fitToDataset;
    /// Opens a checkpoint as an image model; empty for families that are not (readsText), with
    /// `openElsewhere` saying where they open instead.
    ImageOpener open;
    std::string openElsewhere;
    /// Opens a file as a model that reads text (the Sequences page, translate, render --text,
    /// eval); empty for families that read images.
    TextOpener openText;
    /// Imports: whether a file without a sidecar holds a model that reads text, read cheaply (no
    /// weights). May be empty.
    std::function<bool(const std::string& path)> holdsText;
    /// Opens with the user's resize, crop and normalisation (imports, which declare their own);
    /// without it, loadAttentionModel applies a resize itself and refuses the rest.
    std::function<Result<std::shared_ptr<AttentionModel>>(const std::string& path, const std::string& device,
                                                          const InputOverrides& input)>
        openWithInput;
    /// What each rule costs per stage of the forward pass (models/cost_stages.h); empty for families
    /// whose stages the cost view does not know. `costTimedRules` timed rules, each `repeats` times.
    std::function<Result<std::vector<RuleCost>>(const std::string& configJson, CostRun& run)> cost;
    int costTimedRules = 0;
    /// Imports: the cost of the file at `path` measured from the model itself (no sidecar config);
    /// `costTimedRules` timed calls each `repeats` times. May be empty.
    std::function<Result<std::vector<RuleCost>>(const std::string& path, CostRun& run)> importCost;
    /// Opens the model in the file at `path` and runs it on the inputs the request names while a
    /// QkvCapture (attention/qkv_capture.h) records its attention layers' queries, keys and
    /// values. Empty for families without such layers; an import family's says why a file cannot
    /// (the request's `need`: what the queries and keys are for).
    std::function<Result<AttentionRecording>(const std::string& path, const AttentionRecordRequest& request)>
        recordAttentionInputs;
    /// One line under the file name in a model list, from the sidecar's config (JSON text) and dataset.
    std::function<std::string(const std::string& configJson, const std::string& dataset)> listLine;
};

/// Field builders (C++17 has no designated initialisers).
FamilyField integerField(std::string key, std::string label, double min, double max, std::int64_t value, std::string help);
FamilyField realField(std::string key, std::string label, double min, double max, double value, std::string help);
FamilyField choiceField(std::string key, std::string label, std::vector<std::string> choices, std::string value,
                        std::string help);
FamilyField flagField(std::string key, std::string label, std::string help);
/// A Text field, or an Integer with no default ("" = the family decides, e.g. from the dataset).
FamilyField textField(std::string key, std::string label, std::string help);
FamilyField optionalIntegerField(std::string key, std::string label, double min, double max, std::string help);
/// `f`, applying only while field `key` holds one of `values`.
FamilyField only(FamilyField f, std::string key, std::vector<std::string> values);
/// `f`, on the command line only (not on the Training page's form).
FamilyField cliOnly(FamilyField f);
/// A Text field naming a checkpoint to start from (--init-from): not with --resume.
FamilyField startFromField(std::string key, std::string label, std::string help);
/// A number as the shortest text that reads back to it ("0.002", "1e-05", "64").
std::string numberText(double value);

/// A family's `open` for a model class with `static Result<std::shared_ptr<Model>> load(path, device)`.
template <typename Model>
auto openWith() {
    return [](const std::string& path, const std::string& device) -> Result<std::shared_ptr<AttentionModel>> {
        auto m = Model::load(path, device);
        if (!m) return Error{m.error()};
        return std::shared_ptr<AttentionModel>(*m);
    };
}

/// A family's `network`: its config parser (JSON text -> Result<Config>) and its network's
/// constructor (Config -> a shared_ptr to a Module, or a ModuleHolder).
template <typename Parse, typename Make>
auto networkWith(Parse parse, Make make) {
    return [parse, make](const std::string& json) -> Result<std::shared_ptr<torch::nn::Module>> {
        auto config = parse(json);
        if (!config) return Error{config.error()};
        return std::shared_ptr<torch::nn::Module>(make(*config));
    };
}

/// Sets a family's `train` and `readSettings` from one declaration: `read(request, reader)` turns
/// a request into the family's training options, `run(options, progress)` trains from them.
template <typename Read, typename Run>
void setTrainer(ModelFamily& family, Read read, Run run) {
    family.readSettings = [read](const FamilyTrainRequest& r, SettingsReader& s) { (void)read(r, s); };
    family.train = [read, run](const FamilyTrainRequest& r, const TrainProgressCallback& progress) {
        SettingsReader s(r.settings);
        return run(read(r, s), progress);
    };
}

/// Progress figures as the console prints them: `lead` then "name value" pairs two spaces apart,
/// three decimals (" soft 0.910  argmax 0.900").
std::string figureLine(const std::vector<std::pair<std::string, double>>& figures, const std::string& lead = " ");

/// Adds `family`; a second family of a name already registered is refused (an Error naming it),
/// and so is one without a name, a title or a way to open its files (open, openText or
/// openWithInput). The built-in families are registered before the first lookup.
Result<Unit> registerFamily(ModelFamily family);
/// The family named `name`, or null.
const ModelFamily* findFamily(const std::string& name);
/// The family of the model in a file: its sidecar's model type, or the import family for a file
/// without a sidecar; an Error says why there is none.
Result<const ModelFamily*> familyOfFile(const std::string& path);
/// Every registered family: the built-in ones first, in registration order.
std::vector<const ModelFamily*> modelFamilies();

/// `given` checked against the family's fields (an unknown key, a value out of range or not a
/// choice is an Error naming the option) with every missing field at its default.
Result<FamilySettings> checkSettings(const ModelFamily& family, const FamilySettings& given);
/// True when field `f` applies under `settings` (its whenKey condition holds).
bool fieldApplies(const FamilyField& f, const FamilySettings& settings);
/// "saccade-cli train NAME --dataset D --field V ... --batch B --seed S [--lr X]": what re-creates
/// a run (every recorded field that applies; Text fields only when set, flags only when true).
std::string recreateCommand(const ModelFamily& family, const FamilyTrainRequest& request);
/// The settings' values as the types fields hold (for a family's progress lines and conditions).
/// `s` comes from checkSettings and so holds every field: a key it lacks is a programming error
/// (std::logic_error naming it), never a silent "" or 0.
std::int64_t intSetting(const FamilySettings& s, const std::string& key);
double realSetting(const FamilySettings& s, const std::string& key);
bool flagSetting(const FamilySettings& s, const std::string& key);
const std::string& textSetting(const FamilySettings& s, const std::string& key);
/// A `mode` field's value: soft, hard or gumbel.
TrainingMode attentionModeSetting(const FamilySettings& s, const std::string& key);

/// Defined by models/builtin_families.cpp: every family this build ships, in the GUI's order.
std::vector<ModelFamily> builtinFamilies();

}  // namespace saccade
