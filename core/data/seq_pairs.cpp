#include "data/seq_pairs.h"

#include <algorithm>
#include <sstream>

#include "common/atomic_file.h"
#include "common/display_text.h"

namespace saccade {

namespace {

// "12" as a position; anything else (a sign, a space, more than 6 digits) is not one.
bool readPosition(const std::string& text, int& out) {
    if (text.empty() || text.size() > 6) return false;
    out = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        out = out * 10 + (c - '0');
    }
    return true;
}

Result<Unit> readLinks(const std::string& field, SeqPairLine& pair) {
    std::istringstream in(field);
    std::string link;
    while (in >> link) {
        const auto at = link.find_first_of("-?");
        int s = 0, t = 0;
        if (at == std::string::npos || !readPosition(link.substr(0, at), s) || !readPosition(link.substr(at + 1), t))
            return Error{"the alignment link '" + link + "' is not S-T (sure) or S?T (possible), positions from 0"};
        if (link[at] == '-') pair.sure.emplace_back(s, t);
        pair.possible.emplace_back(s, t);
    }
    pair.hasAlignment = true;
    return Unit{};
}

}  // namespace

namespace {

/// A field shown and tokenized as typed text is: UTF-8 without control characters or direction
/// overrides (as --text), and no invisible space that would split or join tokens unseen.
Result<Unit> checkPairText(const std::string& field, const std::string& what) {
    auto shown = checkDisplayText(field, what, 10000);
    if (!shown) return Error{shown.error()};
    static const std::pair<const char*, const char*> kInvisible[] = {
        {"\xC2\xA0", "U+00A0 (no-break space)"}, {"\xE2\x80\x8B", "U+200B (zero-width space)"},
        {"\xE2\x80\x8C", "U+200C (zero-width non-joiner)"}, {"\xE2\x80\x8D", "U+200D (zero-width joiner)"},
        {"\xE2\x81\xA0", "U+2060 (word joiner)"}, {"\xEF\xBB\xBF", "U+FEFF (zero-width no-break space)"}};
    for (const auto& [bytes, name] : kInvisible)
        if (const auto at = field.find(bytes); at != std::string::npos)
            return Error{what + " holds " + name + " at byte " + std::to_string(at) +
                         ", which splits or joins words unseen; use a plain space"};
    return Unit{};
}

}  // namespace

Result<std::vector<SeqPairLine>> parseSeqPairs(const std::string& text, const std::string& name, bool sourcesOnly) {
    std::vector<SeqPairLine> pairs;
    // A byte-order mark is no character of the first source: an editor's mark, skipped.
    std::size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    for (int number = 1; start < text.size(); ++number) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> fields;
        for (std::size_t from = 0;;) {
            const auto tab = line.find('\t', from);
            fields.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
            if (tab == std::string::npos) break;
            from = tab + 1;
        }
        const std::string where = name + ":" + std::to_string(number) + ": ";
        if (fields.size() < (sourcesOnly ? 1u : 2u) || fields.size() > 3)
            return Error{where + "a line is " + (sourcesOnly ? "SOURCE or " : "") + "SOURCE<TAB>TARGET[<TAB>ALIGNMENT], not " +
                         std::to_string(fields.size()) + " tab-separated field" + (fields.size() == 1 ? "" : "s")};
        for (std::size_t f = 0; f < std::min<std::size_t>(2, fields.size()); ++f)
            if (auto ok = checkPairText(fields[f], f == 0 ? "the source" : "the target"); !ok)
                return Error{where + ok.error()};
        SeqPairLine pair;
        pair.line = number;
        pair.source = fields[0];
        if (fields.size() > 1) pair.target = fields[1];
        if (pair.source.find_first_not_of(" ") == std::string::npos) return Error{where + "the source is empty"};
        if (fields.size() > 1 && pair.target.find_first_not_of(" ") == std::string::npos)
            return Error{where + "the target is empty"};
        if (fields.size() == 3)
            if (auto ok = readLinks(fields[2], pair); !ok) return Error{where + ok.error()};
        pairs.push_back(std::move(pair));
    }
    if (pairs.empty())
        return Error{name + (sourcesOnly ? " holds no sentences (one per line)" : " holds no pairs (one SOURCE<TAB>TARGET per line)")};
    return pairs;
}

Result<std::vector<SeqPairLine>> readSeqPairs(const std::string& path, bool sourcesOnly) {
    auto text = readFile(path, std::size_t(64) << 20);
    if (!text) return Error{text.error()};
    return parseSeqPairs(*text, path, sourcesOnly);
}

std::string seqPairsText(const SeqTask& task, Split split, std::int64_t first, std::int64_t count, std::uint64_t seed) {
    std::string out = "# saccade " + task.name() + " " + splitName(split) + " samples " + std::to_string(first) + ".." +
                      std::to_string(first + count - 1) + ", seed " + std::to_string(seed) +
                      ": SOURCE<TAB>TARGET<TAB>alignment (S-T sure, S?T possible)\n";
    for (std::int64_t i = first; i < first + count; ++i) {
        const auto s = task.sample(split, i, seed);
        std::string links;
        for (std::size_t t = 0; t < s.possible.size(); ++t)
            for (int src : s.possible[t]) {
                const bool sure = std::find(s.sure[t].begin(), s.sure[t].end(), src) != s.sure[t].end();
                links += (links.empty() ? "" : " ") + std::to_string(src) + (sure ? "-" : "?") + std::to_string(t);
            }
        out += task.detokenize(s.source) + "\t" + task.detokenize(s.target) + "\t" + links + "\n";
    }
    return out;
}

}  // namespace saccade
