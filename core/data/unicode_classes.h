#pragma once
// The Unicode classes WordPiece tokenisation asks about (data/wordpiece.h), generated from Python's
// unicodedata by scripts/make-unicode-classes.py into unicode_classes.cpp. Plain types.

#include <string>

namespace saccade {

bool isUnicodePunctuation(char32_t c);  ///< categories P*
bool isUnicodeControl(char32_t c);      ///< Cc, Cf, Co; not tab, newline, carriage return
bool isUnicodeSpace(char32_t c);        ///< Zs, tab, newline, carriage return, U+2028, U+2029
bool isCombiningMark(char32_t c);       ///< Mn
/// `c` stripped of its accents and lower-cased (NFD, marks dropped, lower case); itself when that
/// changes nothing.
std::u32string foldLetter(char32_t c);

}  // namespace saccade
