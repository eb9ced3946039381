#pragma once
// Decoding a batch of images under a caption rule, and scoring the captions: corpus BLEU-1..4
// against every reference, exact match, and attention correctness per word class (for each word
// that names an object: the attention mass inside the object's box, and whether the chosen cell
// hits it), and per object size (small, large) the object words' attention and the objects the
// caption names in full. Shared by the captioner's trainer (held-out figures) and CaptionModel::evaluate.
// Engine header: includes LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "metrics/caption_metrics.h"
#include "common/result.h"
#include "common/rng.h"
#include "data/sample.h"
#include "models/caption/caption_network.h"

namespace saccade {

/// A caption decoding rule: soft, argmax or sample (the location rule, words greedy), gumbel:TAU,
/// or beam:K (beam search over words with the model's deterministic attention: soft for a model
/// trained soft, argmax otherwise).
struct CaptionRule {
    SelectionOptions location;
    int beam = 0;  ///< > 0: beam search of this width
    std::string spec;
};
/// Parses a caption rule; `trainedMode` picks beam search's attention. Errors list the rules.
Result<CaptionRule> parseCaptionRule(const std::string& spec, TrainingMode trainedMode);

/// One decoded caption with what each word looked at.
struct DecodedCaption {
    std::vector<std::string> words;
    std::vector<std::vector<float>> attention;  ///< per word, [L] probabilities
    std::vector<int> chosen;                    ///< per word, the chosen cell (-1 for soft)
    std::vector<std::vector<float>> wordProbs;  ///< per word, [V]; filled when asked
    std::vector<float> entropy, logProb;        ///< per word: attention entropy, choice log-prob
};

/// Decodes `images` [B, C, S, S] under `rule` (words greedy unless wordTemperature > 0, drawn
/// from `wordRng`). Throws c10::Error on LibTorch failures.
std::vector<DecodedCaption> decodeImages(CaptionNetwork& net, const torch::Tensor& images, const CaptionRule& rule,
                                         Rng& rng, bool withWordProbs = false, double wordTemperature = 0,
                                         Rng* wordRng = nullptr);

/// Accumulates captions of scenes under one rule.
class CaptionScoreAccumulator {
public:
    CaptionScoreAccumulator(std::string rule, int grid, int imageSize) : m_rule(std::move(rule)), m_grid(grid), m_size(imageSize) {}
    /// Adds one image's caption; returns whether it matched a reference exactly.
    bool add(const Sample& sample, const DecodedCaption& caption);
    CaptionScores scores() const;

private:
    std::string m_rule;
    int m_grid, m_size;
    std::vector<std::vector<std::string>> m_candidates;
    std::vector<std::vector<std::vector<std::string>>> m_references;
    std::int64_t m_exact = 0;
    AttentionCorrectness m_correctness;
    ObjectNaming m_naming;
};

}  // namespace saccade
