// saccade-cli attribute --text: each output token's attribution over the source tokens of a
// sequence model (analysis/seq_attribution.h), beside its attention.

#include "attribute_text.h"

#include <iomanip>
#include <iostream>

#include "analysis/attribution/seq_attribution.h"
#include "commands.h"
#include "data/image_io.h"
#include "models/translator.h"
#include "render/alignment_render.h"

namespace saccade::cli {

namespace {

void printSeqAttribution(const SeqAttribution& a, int only) {
    std::cout << std::fixed << std::setprecision(3) << a.method << " (" << a.rule << " rule) of " << a.target.size()
              << " output tokens over " << a.source.size() << " source tokens, " << a.forwards
              << " sentences through the model, " << a.seconds << " s\n";
    if (a.completenessError)
        std::cout << "  completeness: mean error " << std::setprecision(2) << 100 * *a.completenessError
                  << "% of f(x) - f(baseline) per step\n";
    for (std::size_t t = 0; t < a.rows.size(); ++t) {
        if (only >= 0 && int(t) != only) continue;
        const int s = a.pointed[t];
        std::cout << "  " << std::setw(3) << t << " " << a.target[t] << "  <-  "
                  << (s < 0 ? std::string("(no signal)") : a.source[size_t(s)]) << " (position " << s << ", "
                  << std::setprecision(1) << (s < 0 ? 0.0 : 100 * a.rows[t][size_t(s)]) << "% of the row)\n";
    }
}

}  // namespace

int runAttributeText(const AttributeTextArgs& a) {
    auto model = openTranslator(a.model, a.device);
    if (!model) return badInput("attribute", model.error());
    auto translated = (*model)->translate(a.text, a.options.rule, 1);
    if (!translated) return badInput("attribute", translated.error());
    auto target = (*model)->splitTarget(a.targetText);
    if (a.targetText.empty()) {
        target = translated->tokens;
        if (translated->finished) target.pop_back();  // </s> is explained as the last step anyway
    }
    if (target.empty()) return badInput("attribute", "the translation is empty: nothing to attribute");
    auto attribution = attributeTranslation(**model, translated->source, target, a.options);
    if (!attribution) return badInput("attribute", attribution.error());
    if (a.target >= int(attribution->rows.size()))
        return badInput("attribute", "--target " + std::to_string(a.target) + " is past the output's " +
                                         std::to_string(attribution->rows.size()) + " tokens (0 to " +
                                         std::to_string(attribution->rows.size() - 1) + ", </s> last)");
    if (!a.out.empty()) {
        const auto view = withAttribution(*translated, *attribution);
        AlignmentRenderOptions o;
        o.caption = a.text + "  ->  " + (*model)->detokenize(target) + "   (" + attribution->method + ", " +
                    attribution->rule + " rule)";
        if (auto written = saveImagePng(renderAlignment(view, o), a.out); !written) {
            sayFailure("attribute", written.error());
            return kExitFailure;
        }
    }
    if (a.json) std::cout << seqAttributionToJson(*attribution) << "\n";
    else printSeqAttribution(*attribution, a.target);
    if (!a.out.empty() && !a.json) std::cout << "wrote " << a.out << "\n";
    return 0;
}

}  // namespace saccade::cli
