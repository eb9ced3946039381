// Fuzz target: the parsers of user-typed text (rule specs, numbers, ranges, sample references).
// Each gets the whole input; what parses must satisfy the parser's contract and read back the
// same from its canonical spelling.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "analysis/runs/boundary_sweep.h"
#include "attention/selection.h"
#include "common/parse.h"
#include "data/probes.h"
#include "fuzz_support.h"
#include "models/attention_model.h"
#include "models/caption/caption_eval.h"

namespace {

using namespace saccade;

// "-007" -> "-7", "-0" -> "0": the spelling std::to_string gives a whole number.
std::string canonicalInteger(const std::string& text) {
    const bool negative = !text.empty() && text[0] == '-';
    std::string digits = text.substr(negative ? 1 : 0);
    const auto first = digits.find_first_not_of('0');
    digits = first == std::string::npos ? "0" : digits.substr(first);
    return negative && digits != "0" ? "-" + digits : digits;
}

void checkNumbers(const std::string& text) {
    if (const auto v = parseInteger(text, "value")) {
        SACCADE_FUZZ_CHECK(canonicalInteger(text) == std::to_string(*v), "'%s' parsed as %lld",
                           text.c_str(), static_cast<long long>(*v));
    }
    if (const auto v = parseInteger(text, "value", -1000, 1000)) {
        SACCADE_FUZZ_CHECK(*v >= -1000 && *v <= 1000, "%lld outside -1000..1000",
                           static_cast<long long>(*v));
    }
    if (const auto v = parseNumber(text, "value")) {
        SACCADE_FUZZ_CHECK(std::isfinite(*v), "a non-finite number");
        char shortest[64];
        std::snprintf(shortest, sizeof shortest, "%.17g", *v);
        const auto again = parseNumber(shortest, "value");
        SACCADE_FUZZ_CHECK(again.ok() && *again == *v, "%s does not read back", shortest);
    }
    if (const auto list = parseNumberList(text, "values")) {
        SACCADE_FUZZ_CHECK(!list->empty(), "an empty list");
        SACCADE_FUZZ_CHECK(list->size() == std::size_t(std::count(text.begin(), text.end(), ',')) + 1,
                           "%zu items", list->size());
        for (double v : *list) SACCADE_FUZZ_CHECK(std::isfinite(v), "a non-finite item");
    }
    if (const auto range = parseIntRange(text, "range")) {
        SACCADE_FUZZ_CHECK(range->lo <= range->hi, "lo %d > hi %d", range->lo, range->hi);
        SACCADE_FUZZ_CHECK(range->lo >= -1000000 && range->hi <= 1000000, "%d:%d out of bounds",
                           range->lo, range->hi);
    }
    if (const auto ref = parseSampleRef(text)) {
        SACCADE_FUZZ_CHECK(!ref->dataset.empty() && ref->index >= 0, "dataset '%s', index %lld",
                           ref->dataset.c_str(), static_cast<long long>(ref->index));
        const auto again = parseSampleRef(ref->dataset + ":" + std::to_string(ref->index));
        SACCADE_FUZZ_CHECK(again && again->dataset == ref->dataset && again->index == ref->index,
                           "'%s' does not read back", text.c_str());
    }
}

void checkSelectionRule(const std::string& text) {
    const auto rule = parseSelectionRule(text);
    if (!rule) return;
    SACCADE_FUZZ_CHECK(rule->k >= 1 && rule->k <= 1000000, "k = %lld", static_cast<long long>(rule->k));
    SACCADE_FUZZ_CHECK(rule->temperature >= kMinGumbelTemperature &&
                           rule->temperature <= kMaxGumbelTemperature,
                       "temperature %g", rule->temperature);
    const std::string spec = selectionRuleSpec(*rule);
    const auto again = parseSelectionRule(spec);
    SACCADE_FUZZ_CHECK(again.ok(), "'%s' -> '%s', which does not parse: %s", text.c_str(), spec.c_str(),
                       again.error().c_str());
    SACCADE_FUZZ_CHECK(again->rule == rule->rule && again->k == rule->k, "'%s' -> '%s' changes the rule",
                       text.c_str(), spec.c_str());
    // The spelling keeps 6 significant digits of a temperature: close, and a fixed point.
    SACCADE_FUZZ_CHECK(std::abs(again->temperature - rule->temperature) <= 1e-5 * rule->temperature,
                       "'%s' -> '%s' changes the temperature", text.c_str(), spec.c_str());
    SACCADE_FUZZ_CHECK(selectionRuleSpec(*again) == spec, "'%s' is not canonical", spec.c_str());
}

void checkEvalRules(const std::string& text) {
    const auto rules = parseEvalRules(text);
    if (!rules) return;
    SACCADE_FUZZ_CHECK(!rules->empty(), "no rules");
    for (std::size_t i = 0; i < rules->size(); ++i) {
        const std::string& r = (*rules)[i];
        SACCADE_FUZZ_CHECK(std::count(rules->begin(), rules->end(), r) == 1, "'%s' twice", r.c_str());
        if (r == "mean" || r == "random" || r.rfind("beam", 0) == 0) continue;
        const auto parsed = parseSelectionRule(r);
        SACCADE_FUZZ_CHECK(parsed.ok() && selectionRuleSpec(*parsed) == r, "rule '%s' is not canonical",
                           r.c_str());
        SACCADE_FUZZ_CHECK(parsed->rule != SelectionRule::TopK, "topk accepted");
    }
}

void checkCaptionRule(const std::string& text, TrainingMode mode) {
    const auto rule = parseCaptionRule(text, mode);
    if (!rule) return;
    SACCADE_FUZZ_CHECK(rule->beam >= 0 && rule->beam <= 100, "beam %d", rule->beam);
    SACCADE_FUZZ_CHECK(rule->location.rule != SelectionRule::TopK &&
                           rule->location.rule != SelectionRule::KSample,
                       "'%s' gives a multi-cell rule", text.c_str());
    const auto again = parseCaptionRule(rule->spec, mode);
    SACCADE_FUZZ_CHECK(again && again->spec == rule->spec && again->beam == rule->beam &&
                           again->location.rule == rule->location.rule,
                       "'%s' -> '%s' does not read back", text.c_str(), rule->spec.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::guarded("parsers", [&] {
        checkNumbers(text);
        checkSelectionRule(text);
        checkEvalRules(text);
        checkCaptionRule(text, TrainingMode::Soft);
        checkCaptionRule(text, TrainingMode::Hard);
        if (const auto metric = parseSweepMetric(text))
            SACCADE_FUZZ_CHECK(sweepMetricName(*metric) == text, "metric '%s'", text.c_str());
        if (const auto object = parseProbeObject(text))
            SACCADE_FUZZ_CHECK(text == "blob" || text == "item", "probe object '%s'", text.c_str());
    });
    return 0;
}
