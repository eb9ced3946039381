#pragma once
// What the similarity of two sentences owes to each of their pieces, for a text encoder
// (models/text_encoder.h): the cosine of the two sentence embeddings, and for each sentence
// integrated gradients (Sundararajan et al. 2017) of f(x) = cos(embedding(x), e_other), the other
// sentence's embedding held fixed, over the pieces' embedding rows x: a piece's value is
// sum over the row's dimensions of (x - x') times the mean gradient along the straight path from the
// baseline x' (every row the padding piece's but the start and end pieces, which stay; or 0). The
// values sum to f(x) - f(x') up to the quadrature's error, which completenessError states
// (relative). Positive: the piece pulls the sentences together; negative: apart. Not thread-safe:
// one caller of the model at a time. Plain types.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.h"
#include "common/result.h"

namespace saccade {

class Translator;  // models/translator.h

struct SimilarityOptions {
    int steps = 64;                             ///< points of the path (>= 1)
    std::string quadrature = "gauss-legendre";  ///< or trapezoid, midpoint (analysis/path_quadrature.h)
    /// "pad" (the padding piece's rows), "zero", or "auto" (pad where the vocabulary has a padding
    /// piece, else zero); the result names the one used.
    std::string baseline = "pad";
};

struct SentenceAttribution {
    std::string text;
    std::vector<std::string> pieces;
    std::vector<double> values;  ///< per piece, signed
    double difference = 0;       ///< f(x) - f(x')
    double sum = 0;              ///< the values' sum
    std::optional<double> completenessError;  ///< |sum - difference| / |difference|; none when the difference is ~0
};

struct SentenceSimilarity {
    std::string model;
    SimilarityOptions options;
    double cosine = 0;
    SentenceAttribution sentences[2];
    std::int64_t forwards = 0;  ///< sentences through the model
    double seconds = 0;
};

/// The options' own checks (steps, quadrature, baseline), before any model.
Result<Unit> checkSimilarityOptions(const SimilarityOptions& options);

/// The similarity of `a` and `b` under `model` and its attribution to their pieces. Errors, one
/// line each: a model that is not a text encoder, one without embed and encode_embedded, bad
/// options, an empty or too long sentence, a model that fails. `progress` (may be empty) hears of
/// each path point and may cancel.
Result<SentenceSimilarity> attributeSimilarity(const Translator& model, const std::string& a, const std::string& b,
                                               const SimilarityOptions& options, const Progress& progress = {});

/// JSON, schema "saccade.similarity" (docs/schemas.md).
std::string sentenceSimilarityToJson(const SentenceSimilarity& s);

}  // namespace saccade
