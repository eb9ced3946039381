#include "common/display_text.h"

#include <cstdint>
#include <cstdio>

namespace saccade {

namespace {

/// Decodes one UTF-8 character at `i` (advancing it); -1 for a malformed or overlong sequence.
long nextCodePoint(const std::string& s, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    int extra = 0;
    long cp = 0;
    if (c < 0x80) { ++i; return c; }
    if ((c & 0xE0) == 0xC0) extra = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) extra = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) extra = 3, cp = c & 0x07;
    else return -1;
    if (i + extra >= s.size()) return -1;  // truncated at the end
    for (int k = 1; k <= extra; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    static const long kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    i += extra + 1;
    return cp;
}

bool isRefused(long cp, bool allowNewlines) {
    if (allowNewlines && (cp == '\n' || cp == '\t')) return false;
    // U+2028 and U+2029 break a line as a newline does, unseen in the bytes.
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

std::string codePointName(long cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04lX", cp);
    return buf;
}

}  // namespace

Result<std::string> checkDisplayText(const std::string& text, const std::string& what, std::size_t maxBytes,
                                     bool allowNewlines) {
    if (text.size() > maxBytes)
        return Error{what + " is " + std::to_string(text.size()) + " bytes long (at most " + std::to_string(maxBytes) + ")"};
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t at = i;
        const long cp = nextCodePoint(text, i);
        if (cp < 0) return Error{what + " is not valid UTF-8 (at byte " + std::to_string(at) + ")"};
        if (isRefused(cp, allowNewlines))
            return Error{what + " holds the " +
                         (cp == 0x2028 || cp == 0x2029 ? "line separator " : cp >= 0x2000 ? "direction override " : "control character ") +
                         codePointName(cp) + " at byte " + std::to_string(at) +
                         " (control and direction-override characters cannot be shown)"};
    }
    return text;
}

std::string escapeDisplayText(const std::string& text, std::size_t maxBytes) {
    std::string out;
    char buf[16];
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t at = i;
        const long cp = nextCodePoint(text, i);
        if (cp < 0) {  // one byte that is not UTF-8
            std::snprintf(buf, sizeof buf, "\\x%02X", unsigned(static_cast<unsigned char>(text[at])));
            out += buf;
            i = at + 1;
        } else if (isRefused(cp, /*allowNewlines=*/false)) {
            std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02lX" : "\\u%04lX", cp);
            out += buf;
        } else {
            out.append(text, at, i - at);
        }
        if (out.size() > maxBytes) {
            std::size_t cut = maxBytes;  // not inside a UTF-8 character
            while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
            out.resize(cut);
            return out + "... (" + std::to_string(text.size()) + " bytes in all)";
        }
    }
    return out;
}

}  // namespace saccade
