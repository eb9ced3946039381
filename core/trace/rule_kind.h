#pragma once
// The rules a model runs under, as types. This file is the one registry of their names: a rule is
// spelt NAME or NAME:PARAMETER ("ksample:10", "beam:3", "head:2", "gumbel:0.5"), and views ask a
// spelling's kind and its traits instead of comparing names. Parsing a rule's parameter stays
// with what runs it (attention/selection.h for the selection rules, the models for theirs).

#include <optional>
#include <string>

namespace saccade {

enum class RuleKind {
    Soft,       ///< the expected context over every place (no choice is made)
    Sample,     ///< one seeded draw per step
    Argmax,     ///< the most probable place per step
    TopK,       ///< the K most probable places (topk:K)
    KSample,    ///< K seeded draws per step (ksample:K)
    Gumbel,     ///< straight-through Gumbel-softmax (gumbel:TAU)
    Mean,       ///< a RAM's location policy's mean
    Random,     ///< uniformly random glimpses (a RAM's control)
    Attention,  ///< a transformer's CLS attention, mean of heads
    Head,       ///< one head of a transformer (head:K)
    Rollout,    ///< attention rolled out through a transformer's layers
    Beam,       ///< a captioner's beam search (beam:K)
    Forward,    ///< what an imported classifier's forward returns
    Caption,    ///< an imported captioner's own decoding
    Translate,  ///< an imported translator's own decoding
    Encode,     ///< an imported text encoder's forward
};

/// What follows a rule's colon.
enum class RuleParameter {
    None,         ///< nothing: "soft:3" is no rule
    Count,        ///< a whole number K (topk:K, ksample:K, beam:K, head:K)
    Temperature,  ///< a temperature TAU (gumbel:TAU)
};

struct RuleKindTraits {
    RuleKind kind;
    const char* name;         ///< the spelling before any colon
    RuleParameter parameter;  ///< what follows the colon
    bool stochastic;        ///< a run draws from its seed, so runs of one input differ
    bool severalPerStep;    ///< a step reads K places (topk, ksample)
};

const RuleKindTraits& traitsOf(RuleKind kind);
/// The name before any colon, e.g. "ksample".
std::string ruleName(RuleKind kind);
/// The kind of a rule's spelling, by its name before any colon; nullopt for a name that is no rule
/// ("beamfoo", "") or a parameter given to a rule that takes none ("soft:3"). Says nothing of the
/// parameter's value: "beam" and "beam:x" are both Beam.
std::optional<RuleKind> ruleKindOf(const std::string& spec);
/// Whether `spec` spells a rule of `kind`: isRule("ksample:10", RuleKind::KSample).
bool isRule(const std::string& spec, RuleKind kind);

}  // namespace saccade
