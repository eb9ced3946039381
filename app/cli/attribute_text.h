#pragma once
// saccade-cli attribute --text: a sequence model's attribution over its source (attribute_text.cpp).

#include <string>

#include "analysis/attribution/seq_attribution.h"

namespace saccade::cli {

struct AttributeTextArgs {
    std::string model, device = "auto", text, targetText, out;
    SeqAttributionOptions options;
    int target = -1;  ///< the one output position to print; -1: every one
    bool json = false;
};

/// Exit 0, 2 on bad input (one line), 1 when the PNG cannot be written.
int runAttributeText(const AttributeTextArgs& args);

}  // namespace saccade::cli
