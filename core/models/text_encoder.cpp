#include "models/text_encoder.h"

namespace saccade {

std::string writesNoTextLine(const Translator& model, const std::string& what) {
    return model.path() + " is a text encoder: it writes no text, so " + what +
           "; translate shows its self-attention and similarity attributes its sentence embedding's similarity "
           "to the pieces";
}

Result<std::vector<std::vector<double>>> TextEncoder::forcedAlignment(const std::vector<std::string>&,
                                                                      const std::vector<std::string>&, const std::string&,
                                                                      std::uint64_t) const {
    return Error{writesNoTextLine(*this, "it has no decoder to feed a reference")};
}

Result<SeqEvalReport> TextEncoder::evaluate(const SeqEvalOptions&, const SeqEvalProgress&) const {
    return Error{writesNoTextLine(*this, "there is no output to score")};
}

}  // namespace saccade
