#include "data/seq_task.h"

#include <cctype>

#include "common/seed_mix.h"

namespace saccade {

namespace {
const std::vector<std::string> kSpecials = {"<pad>", "<s>", "</s>", "<unk>"};

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
    return h;
}
}  // namespace

SeqVocab::SeqVocab(const std::vector<std::string>& tokens) {
    for (const auto& t : kSpecials) {
        m_ids.emplace(t, size());
        m_tokens.push_back(t);
    }
    for (const auto& t : tokens)
        if (m_ids.emplace(t, size()).second) m_tokens.push_back(t);
}

std::int64_t SeqVocab::id(const std::string& token) const {
    const auto it = m_ids.find(token);
    return it == m_ids.end() ? kSeqUnknown : it->second;
}

const std::string& SeqVocab::token(std::int64_t id) const {
    static const std::string unknown = "?";
    return id >= 0 && id < size() ? m_tokens[static_cast<std::size_t>(id)] : unknown;
}

SeqSample SeqTask::sample(Split split, std::int64_t index, std::uint64_t seed) const {
    const std::uint64_t base = mixSeed(seed, split == Split::Train ? 0x5e91 : 0x5e92, static_cast<std::uint64_t>(index));
    // About one key in ten belongs to the test split. Retrying with the next stream keeps
    // sample i fixed; 4,000 tries fail with probability below 1e-180.
    SeqSample s;
    for (std::uint64_t attempt = 0; attempt < 4000; ++attempt) {
        s = generate(splitmix64(base + attempt), split);
        const bool test = fnv1a(splitKey(s)) % 10 == 0;
        if (test == (split == Split::Test)) return s;
    }
    return s;
}

SeqTokens SeqTask::tokenize(const std::string& text) const {
    SeqTokens out;
    std::vector<std::string> raw;
    const bool words = tokenKind() == SeqTokenKind::Words;
    std::string word;
    bool pendingSpace = false;
    auto flushWord = [&] {
        if (!word.empty()) raw.push_back(word);
        word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t len = 1;
        std::string token;
        if (c >= 0x80) {  // one UTF-8 code point is one token (never in a vocabulary)
            len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
            bool valid = len > 0 && i + len <= text.size();
            for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
            if (!valid) len = 1;
            token = valid ? text.substr(i, len) : std::string("\xef\xbf\xbd");  // an invalid byte reads as U+FFFD
        } else {
            token = text.substr(i, 1);
        }
        i += len;
        if (len == 1 && std::isspace(c)) {
            if (words) flushWord();
            else pendingSpace = !raw.empty();
            continue;
        }
        if (words) {
            if (len == 1 && std::isalnum(c)) word += static_cast<char>(std::tolower(c));
            else if (len == 1 && (c == '\'' || c == '-') && !word.empty()) word += static_cast<char>(c);
            else {
                flushWord();
                raw.push_back(token);
            }
        } else {
            if (pendingSpace) raw.push_back(" ");
            pendingSpace = false;
            raw.push_back(token);
        }
    }
    flushWord();
    for (const auto& t : raw) {
        if (!sourceVocab().contains(t) && std::find(out.unknown.begin(), out.unknown.end(), t) == out.unknown.end())
            out.unknown.push_back(t);
    }
    out.tokens = std::move(raw);
    return out;
}

std::string joinTokens(const std::vector<std::string>& tokens, SeqTokenKind kind) {
    std::string s;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (kind == SeqTokenKind::Words && i > 0) s += ' ';
        s += tokens[i];
    }
    return s;
}

std::string SeqTask::detokenize(const std::vector<std::string>& tokens) const { return joinTokens(tokens, tokenKind()); }

std::vector<std::string> seqTaskNames() { return {"dates", "reverse", "sort", "toy-translation"}; }

Result<std::shared_ptr<const SeqTask>> openSeqTask(const std::string& name) {
    if (name == "dates") return makeDatesTask();
    if (name == "reverse") return makeReverseTask();
    if (name == "sort") return makeSortTask();
    if (name == "toy-translation") return makeToyTranslationTask();
    return Error{"unknown sequence task '" + name + "' (use dates, reverse, sort or toy-translation)"};
}

}  // namespace saccade
