#pragma once
// Sequence tasks whose true alignment is known: every sample carries, for each target token, the
// source positions it comes from. `sure` positions are unambiguous; `possible` ones (a superset)
// include every position a correct alignment may use (a month written as a word gives both month
// digits every letter of the word; a repeated digit in `sort` may come from any of its copies).
// Target tokens with no source (the dashes of an ISO date) have neither and are left out of the
// alignment error rate. Plain types.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/sample.h"

namespace saccade {

/// The test split's seed: every model of a task is measured on the same sentences.
constexpr std::uint64_t kSeqTestSeed = 1;

/// Token ids 0..3 are the same in every vocabulary.
constexpr std::int64_t kSeqPad = 0, kSeqStart = 1, kSeqEnd = 2, kSeqUnknown = 3;

class SeqVocab {
public:
    SeqVocab() = default;
    /// The four special tokens, then `tokens` in order (duplicates ignored).
    explicit SeqVocab(const std::vector<std::string>& tokens);
    std::int64_t size() const { return static_cast<std::int64_t>(m_tokens.size()); }
    /// kSeqUnknown for a token outside the vocabulary.
    std::int64_t id(const std::string& token) const;
    bool contains(const std::string& token) const { return m_ids.count(token) != 0; }
    /// "<pad>", "<s>", "</s>", "<unk>" for the specials; "?" out of range.
    const std::string& token(std::int64_t id) const;

private:
    std::vector<std::string> m_tokens;
    std::map<std::string, std::int64_t> m_ids;
};

enum class SeqTokenKind { Characters, Words };

struct SeqSample {
    std::vector<std::string> source, target;  ///< tokens, no specials
    std::vector<std::vector<int>> sure, possible;  ///< per target token: source positions
};

/// A typed text split into tokens: unknown ones (outside the source vocabulary) are listed.
struct SeqTokens {
    std::vector<std::string> tokens;
    std::vector<std::string> unknown;  ///< distinct, in order of appearance
};

class SeqTask {
public:
    virtual ~SeqTask() = default;
    virtual std::string name() const = 0;
    /// One line for --help and the page.
    virtual std::string description() const = 0;
    virtual SeqTokenKind tokenKind() const = 0;
    const SeqVocab& sourceVocab() const { return m_source; }
    const SeqVocab& targetVocab() const { return m_target; }
    /// Longest source and target (tokens, without specials) any sample of any split has.
    virtual int maxSourceLength() const = 0;
    virtual int maxTargetLength() const = 0;
    /// Source lengths the training split covers (samples outside show generalisation).
    virtual std::pair<int, int> trainLengths() const = 0;

    /// Sample `index` of `split` under `seed`: the same in any order. A sample's split is fixed by
    /// a hash of its splitKey(), so no key appears in both splits.
    SeqSample sample(Split split, std::int64_t index, std::uint64_t seed) const;
    /// What decides a sample's split: its source text, or for `dates` the date itself (so a test
    /// date is never seen in training in another form or case).
    virtual std::string splitKey(const SeqSample& sample) const { return detokenize(sample.source); }
    /// Test samples per evaluation split; the training split is unbounded.
    static constexpr std::int64_t kTestSize = 2000;

    /// Splits a typed text into tokens (characters, or words with punctuation apart).
    SeqTokens tokenize(const std::string& text) const;
    /// Tokens back to text (characters joined, words with spaces).
    std::string detokenize(const std::vector<std::string>& tokens) const;
    /// The correct output and alignment for a typed text, or why the text is outside the task's
    /// language ("31 February 2021 is not a date").
    virtual Result<SeqSample> reference(const std::string& text) const = 0;

protected:
    SeqTask(SeqVocab source, SeqVocab target) : m_source(std::move(source)), m_target(std::move(target)) {}
    /// One random sample of the split's distribution (the split picks lengths where they differ).
    virtual SeqSample generate(std::uint64_t seed, Split split) const = 0;

private:
    SeqVocab m_source, m_target;
};

/// Tokens as text: characters joined, words with a space between.
std::string joinTokens(const std::vector<std::string>& tokens, SeqTokenKind kind);

/// "dates", "reverse", "sort", "toy-translation"; anything else is an Error listing them.
Result<std::shared_ptr<const SeqTask>> openSeqTask(const std::string& name);
std::vector<std::string> seqTaskNames();

/// Builders for each task (seq_dates.cpp, seq_digits.cpp, seq_toy_translation.cpp).
std::shared_ptr<const SeqTask> makeDatesTask();
std::shared_ptr<const SeqTask> makeReverseTask();
std::shared_ptr<const SeqTask> makeSortTask();
std::shared_ptr<const SeqTask> makeToyTranslationTask();

}  // namespace saccade
