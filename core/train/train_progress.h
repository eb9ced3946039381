#pragma once
// What every trainer reports while it runs (after each iteration) and when it ends. Plain types.

#include <cstdint>
#include <string>

namespace saccade {

struct TrainProgress {
    std::int64_t iteration = 0, total = 0;
    double elapsedSeconds = 0, etaSeconds = 0;
    double loss = 0, crossEntropy = 0, reinforce = 0, reward = 0, baseline = 0, entropy = 0;
    double temperature = 0, lr = 0, trainAccuracy = 0;
    bool evaluated = false;  ///< an evaluation just ran: the fields below are set
    /// Held-out accuracy under three rules; each family says which (patch: soft, argmax, sample;
    /// RAM: random, mean, sample; captioner: exact match under soft, argmax, sample).
    double evalSoft = 0, evalArgmax = 0, evalSample = 0;
    /// Captioners: held-out BLEU-4 and attention correctness (mass in the named object's box) of
    /// the deterministic rule; negative for families without them.
    double evalBleu4 = -1, evalAttention = -1;
};

struct TrainSummary {
    std::int64_t iterations = 0;
    bool cancelled = false;
    double seconds = 0;
    double trainSeconds = 0;     ///< `seconds` less evaluations and checkpoint writes
    double imagesPerSecond = 0;  ///< training images per second of training time
    std::string checkpoint;
    std::string metricsJson;  ///< the last evaluation and training figures
    std::string parametersCrc;  ///< data-parallel runs: CRC-32 of the final parameters, equal on every rank
};

}  // namespace saccade
