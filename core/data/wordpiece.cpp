#include "data/wordpiece.h"

#include <algorithm>

#include "data/unicode_classes.h"

namespace saccade {

namespace {

/// UTF-8 to code points; an invalid byte reads as U+FFFD (which the cleaning then drops, as BERT's).
std::u32string decode(const std::string& text) {
    std::u32string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        bool valid = len > 0 && i + len <= text.size();
        char32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        for (std::size_t k = 1; valid && k < len; ++k) {
            const auto b = static_cast<unsigned char>(text[i + k]);
            valid = (b & 0xc0) == 0x80;
            cp = (cp << 6) | (b & 0x3f);
        }
        out += valid ? cp : char32_t(0xfffd);
        i += valid ? len : 1;
    }
    return out;
}

std::string encode(const std::u32string& text) {
    std::string out;
    for (char32_t c : text) {
        if (c < 0x80) {
            out += char(c);
        } else if (c < 0x800) {
            out += char(0xc0 | (c >> 6));
            out += char(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            out += char(0xe0 | (c >> 12));
            out += char(0x80 | ((c >> 6) & 0x3f));
            out += char(0x80 | (c & 0x3f));
        } else {
            out += char(0xf0 | (c >> 18));
            out += char(0x80 | ((c >> 12) & 0x3f));
            out += char(0x80 | ((c >> 6) & 0x3f));
            out += char(0x80 | (c & 0x3f));
        }
    }
    return out;
}

bool isCjk(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/// BERT counts every non-alphanumeric ASCII character as punctuation ("$", "^", "`" too).
bool isPunctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    return c >= 0x80 && isUnicodePunctuation(c);
}

}  // namespace

std::vector<std::string> basicWords(const std::string& text, bool lowerCase) {
    std::vector<std::string> words;
    std::u32string word;
    auto flush = [&] {
        if (!word.empty()) words.push_back(encode(word));
        word.clear();
    };
    for (char32_t c : decode(text)) {
        if (c == 0 || c == 0xfffd || isUnicodeControl(c)) continue;
        if (isUnicodeSpace(c) || c == ' ') {
            flush();
            continue;
        }
        if (lowerCase && isCombiningMark(c)) continue;  // a stripped accent
        const std::u32string folded = lowerCase ? foldLetter(c) : std::u32string(1, c);
        for (char32_t f : folded) {
            if (isCjk(f) || isPunctuation(f)) {
                flush();
                word = f;
                flush();
            } else {
                word += f;
            }
        }
    }
    flush();
    return words;
}

WordPieces wordPieces(const std::string& text, const std::map<std::string, long>& vocabulary, const WordPieceRules& rules) {
    WordPieces out;
    for (const auto& word : basicWords(text, rules.lowerCase)) {
        const std::u32string chars = decode(word);
        std::vector<std::string> pieces;
        bool covered = chars.size() <= rules.maxWordCharacters;
        for (std::size_t start = 0; covered && start < chars.size();) {
            std::size_t end = chars.size();
            std::string found;
            for (; end > start; --end) {  // the longest piece from `start` the vocabulary holds
                const std::string piece = (start > 0 ? rules.continuation : "") + encode(chars.substr(start, end - start));
                if (vocabulary.count(piece)) {
                    found = piece;
                    break;
                }
            }
            covered = !found.empty();
            pieces.push_back(found);
            start = end;
        }
        if (covered) {
            out.pieces.insert(out.pieces.end(), pieces.begin(), pieces.end());
        } else {
            out.pieces.push_back(rules.unknown);
            if (std::find(out.unknownWords.begin(), out.unknownWords.end(), word) == out.unknownWords.end())
                out.unknownWords.push_back(word);
        }
    }
    return out;
}

}  // namespace saccade
