#pragma once
// What a model outputs and how it was trained, as types. This file is the one registry of their
// names: views ask a kind's traits (does a run say a word per step? do its labels index classes?)
// instead of comparing names, and JSON keeps the names ("output_kind": "caption").

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

/// What one run of a model outputs.
enum class OutputKind {
    Class,    ///< a class (classifiers: patch, RAM, ViT, imported classifiers)
    Caption,  ///< a caption, a word per step (captioners, bundled or imported)
};

/// What differs between output kinds, for the views that score, summarise, compare and draw runs.
struct OutputKindTraits {
    OutputKind kind;
    const char* name;  ///< JSON's "output_kind" and messages: "class", "caption"
    const char* plural;  ///< "classes", "captions"
    /// A run says a word per step (TraceStep::token), its outputProbs range over a vocabulary
    /// (classNames()) and TraceOutput::text holds the words.
    bool wordSteps;
    /// A run's label indexes classNames() and a dataset's labels are its truth; otherwise a run set
    /// labels the distinct outputs of its runs, and the truth is reference texts.
    bool labelsAreClasses;
    /// Scored against reference texts (BLEU, exact match) rather than a class label.
    bool referenceScored;
};

const OutputKindTraits& traitsOf(OutputKind kind);
/// "class" or "caption".
std::string outputKindName(OutputKind kind);
/// The kind a name stands for; an unknown name is an Error listing the known ones.
Result<OutputKind> parseOutputKind(const std::string& name);

/// How a model learnt where to look (AttentionModel::trainedMode).
enum class TrainingMode {
    Soft,       ///< backprop through the expected context
    Hard,       ///< REINFORCE with a baseline over sampled locations (patch, caption)
    Gumbel,     ///< straight-through Gumbel-softmax
    Reinforce,  ///< RAM: REINFORCE over glimpse locations
    Imported,   ///< an imported file: how it was trained is not recorded
};

struct TrainingModeTraits {
    TrainingMode mode;
    const char* name;  ///< JSON's "trained_mode" and the sidecar's "mode": "soft", "hard", ...
    /// The evaluation rule that runs the model as it was trained: soft, sample or gumbel. An
    /// import names none: "imported", which no rule matches (isTrainingRule).
    const char* trainingRule;
    bool recorded;    ///< the file records how it was trained (false: Imported)
    bool reinforced;  ///< learnt by REINFORCE: its deterministic view is an argmax or mean of samples
};

const TrainingModeTraits& traitsOf(TrainingMode mode);
/// "soft", "hard", "gumbel", "reinforce" or "imported".
std::string trainingModeName(TrainingMode mode);
/// The mode a name stands for; an unknown name is an Error listing the known ones.
Result<TrainingMode> parseTrainingMode(const std::string& name);
/// The names of the modes an attention family trains with (its `mode` field): soft, hard, gumbel.
std::vector<std::string> attentionTrainingModeNames();
/// One of those modes by name; anything else is an Error naming the three.
Result<TrainingMode> parseAttentionTrainingMode(const std::string& name);

}  // namespace saccade
