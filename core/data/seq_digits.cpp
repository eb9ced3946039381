// `reverse` and `sort`: digit strings, 4-15 digits in training and 4-20 in the test split, so
// the longer test strings show where attention stops generalising. Character tokens.
// Gold alignment: reverse, target t <- source L-1-t (sure); sort, a digit <- every copy of that
// digit in the source (possible; sure when the digit occurs once).

#include <algorithm>

#include "common/seed_mix.h"
#include "data/seq_task.h"

namespace saccade {

namespace {

std::vector<std::string> digits() {
    std::vector<std::string> d;
    for (char c = '0'; c <= '9'; ++c) d.emplace_back(1, c);
    return d;
}

class DigitTask : public SeqTask {
public:
    explicit DigitTask(bool sort) : SeqTask(SeqVocab(digits()), SeqVocab(digits())), m_sort(sort) {}
    std::string name() const override { return m_sort ? "sort" : "reverse"; }
    std::string description() const override {
        return m_sort ? "sort a string of digits (4-15 in training, up to 20 in the test split); characters"
                      : "reverse a string of digits (4-15 in training, up to 20 in the test split); characters";
    }
    SeqTokenKind tokenKind() const override { return SeqTokenKind::Characters; }
    int maxSourceLength() const override { return 20; }
    int maxTargetLength() const override { return 20; }
    std::pair<int, int> trainLengths() const override { return {4, 15}; }

    Result<SeqSample> reference(const std::string& text) const override {
        const auto tokens = tokenize(text);
        if (!tokens.unknown.empty()) return Error{"'" + tokens.unknown.front() + "' is not a digit"};
        if (tokens.tokens.empty()) return Error{"no digits"};
        if (int(tokens.tokens.size()) > maxSourceLength())
            return Error{std::to_string(tokens.tokens.size()) + " digits: the task goes up to " + std::to_string(maxSourceLength())};
        return solve(tokens.tokens);
    }

protected:
    SeqSample generate(std::uint64_t seed, Split split) const override {
        std::mt19937_64 rng(seed);
        const int hi = split == Split::Train ? trainLengths().second : maxSourceLength();
        const auto len = uniformInt(rng, trainLengths().first, hi);
        std::vector<std::string> src;
        for (std::int64_t i = 0; i < len; ++i) src.emplace_back(1, char('0' + uniformInt(rng, 0, 9)));
        return solve(src);
    }

private:
    SeqSample solve(const std::vector<std::string>& src) const {
        SeqSample s;
        s.source = src;
        const int n = int(src.size());
        s.sure.resize(size_t(n));
        s.possible.resize(size_t(n));
        if (!m_sort) {
            for (int t = 0; t < n; ++t) {
                s.target.push_back(src[size_t(n - 1 - t)]);
                s.sure[size_t(t)] = s.possible[size_t(t)] = {n - 1 - t};
            }
            return s;
        }
        s.target = src;
        std::sort(s.target.begin(), s.target.end());
        for (int t = 0; t < n; ++t) {
            for (int q = 0; q < n; ++q)
                if (src[size_t(q)] == s.target[size_t(t)]) s.possible[size_t(t)].push_back(q);
            if (s.possible[size_t(t)].size() == 1) s.sure[size_t(t)] = s.possible[size_t(t)];
        }
        return s;
    }
    bool m_sort;
};

}  // namespace

std::shared_ptr<const SeqTask> makeReverseTask() { return std::make_shared<DigitTask>(false); }
std::shared_ptr<const SeqTask> makeSortTask() { return std::make_shared<DigitTask>(true); }

}  // namespace saccade
