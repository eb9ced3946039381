#include "ui/sequences/attribution_maps.h"

#include "analysis/attribution/seq_attribution.h"

namespace saccade::ui {

namespace {
const QString kPrefix = QStringLiteral("attribution: ");
}

QStringList attributionMapNames() {
    QStringList names;
    for (const auto& m : seqAttributionMethods())
        if (m != "attention" && m != "rollout") names << kPrefix + QString::fromStdString(m);
    return names;
}

std::string attributionMethodOf(const QString& mapName) {
    return mapName.startsWith(kPrefix) ? mapName.mid(kPrefix.size()).toStdString() : std::string();
}

AttributedTranslation attributeShown(const Translator& model, const SeqTranslation& t, const std::string& method,
                                     const std::string& rule) {
    auto target = t.tokens;
    if (t.finished && !target.empty()) target.pop_back();  // </s> is explained as the last step anyway
    if (target.empty()) return {std::nullopt, QStringLiteral("the output is empty: nothing to attribute")};
    SeqAttributionOptions o;
    o.method = method;
    o.rule = rule;
    auto a = attributeTranslation(model, t.source, target, o);
    if (!a) return {std::nullopt, QString::fromStdString(a.error())};
    return {withAttribution(t, *a), QString()};
}

}  // namespace saccade::ui
