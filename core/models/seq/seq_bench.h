#pragma once
// Benchmark of the attentive encoder-decoder at the sizes of ../shared/bench/seq2seq_reference.py
// (embed 64, bidirectional GRU encoder 128 per direction, GRU decoder 256, attention 128,
// vocabularies 48, source 24, target 12, batch 64): training sentences/s (one Adam step of
// teacher-forced cross-entropy on random token sequences, made outside the timed region) and the
// time to decode 1,000 sentences greedily in one batch, per scorer; with a model, the time to
// translate one 40-character input (what the Sequences page does at each keystroke).

#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

struct SeqBenchOptions {
    std::vector<std::string> scorers = {"additive", "general", "dot", "scaled-dot"};
    int sourceLength = 24, targetLength = 12, batch = 64, sentences = 1000;
    int repeats = 5;
    int warmups = 2;    ///< untimed runs before the repeats (0: none, for counting instructions)
    std::string device = "auto";
    std::string model;  ///< also time one 40-character translation with this model
};

struct SeqBenchScorer {
    std::string scorer;
    double trainStepMs = 0, trainSentencesPerSecond = 0;
    double translateMs = 0;
};

struct SeqBenchResult {
    int threads = 0;
    std::string device;
    std::vector<SeqBenchScorer> scorers;
    double oneSentenceMs = 0;  ///< with a model
    int oneSentenceChars = 0;
};

Result<SeqBenchResult> benchSeq(const SeqBenchOptions& options);
std::string seqBenchToJson(const SeqBenchOptions& options, const SeqBenchResult& result);

}  // namespace saccade
