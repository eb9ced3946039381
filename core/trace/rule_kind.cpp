#include "trace/rule_kind.h"

namespace saccade {

namespace {

constexpr RuleKindTraits kRules[] = {
    {RuleKind::Soft, "soft", RuleParameter::None, false, false},
    {RuleKind::Sample, "sample", RuleParameter::None, true, false},
    {RuleKind::Argmax, "argmax", RuleParameter::None, false, false},
    {RuleKind::TopK, "topk", RuleParameter::Count, false, true},
    {RuleKind::KSample, "ksample", RuleParameter::Count, true, true},
    {RuleKind::Gumbel, "gumbel", RuleParameter::Temperature, true, false},
    {RuleKind::Mean, "mean", RuleParameter::None, false, false},
    {RuleKind::Random, "random", RuleParameter::None, true, false},
    {RuleKind::Attention, "attention", RuleParameter::None, false, false},
    {RuleKind::Head, "head", RuleParameter::Count, false, false},
    {RuleKind::Rollout, "rollout", RuleParameter::None, false, false},
    {RuleKind::Beam, "beam", RuleParameter::Count, false, false},
    {RuleKind::Forward, "forward", RuleParameter::None, false, false},
    {RuleKind::Caption, "caption", RuleParameter::None, false, false},
    {RuleKind::Translate, "translate", RuleParameter::None, false, false},
    {RuleKind::Encode, "encode", RuleParameter::None, false, false},
};

}  // namespace

const RuleKindTraits& traitsOf(RuleKind kind) {
    for (const auto& t : kRules)
        if (t.kind == kind) return t;
    return kRules[0];  // unreachable: every enumerator has a row
}

std::string ruleName(RuleKind kind) { return traitsOf(kind).name; }

std::optional<RuleKind> ruleKindOf(const std::string& spec) {
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    for (const auto& t : kRules)
        if (name == t.name) {
            if (colon != std::string::npos && t.parameter == RuleParameter::None) return std::nullopt;  // "soft:3" is no rule
            return t.kind;
        }
    return std::nullopt;
}

bool isRule(const std::string& spec, RuleKind kind) { return ruleKindOf(spec) == kind; }

}  // namespace saccade
