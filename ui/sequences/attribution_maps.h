#pragma once
// The attribution maps of the Sequences page's Map list (issue 37): each output token's
// attribution over the source (analysis/seq_attribution.h) in place of the attention, on the same
// colour scale (each row sums to 1, as attention's does).

#include <optional>
#include <string>

#include <QString>
#include <QStringList>

#include "models/translator.h"
#include "trace/seq_translation.h"

namespace saccade::ui {

/// "attribution: gradient", ... in the order of seqAttributionMethods(), attention and rollout left
/// out (the list has them as maps of their own).
QStringList attributionMapNames();

/// The method of an attribution map's name ("gradient"), or empty for an attention map.
std::string attributionMethodOf(const QString& mapName);

/// `translation` (by `model`) seen through `method`'s map of its own output, or why not (one line).
struct AttributedTranslation {
    std::optional<SeqTranslation> view;
    QString error;
};
AttributedTranslation attributeShown(const Translator& model, const SeqTranslation& translation, const std::string& method,
                                     const std::string& rule);

}  // namespace saccade::ui
