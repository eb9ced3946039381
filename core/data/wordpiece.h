#pragma once
// WordPiece tokenisation as BERT's tokenizers do it (Devlin et al. 2019; transformers'
// BasicTokenizer then WordpieceTokenizer), for imported text encoders (models/script): the text is
// cleaned (control characters dropped, whitespace made spaces), CJK ideographs set apart, lower-cased
// and stripped of accents where asked, split on whitespace and on punctuation, then each word is
// cut greedily into the longest pieces of the vocabulary ("play", "##ing"); a word no cut covers,
// or one over 100 characters, is the unknown piece. Case and accents are folded letter by letter
// for every letter Unicode decomposes or lower-cases (data/unicode_classes.h; Hangul syllables into
// their jamo); Python's context-sensitive final sigma is not. Plain types.

#include <map>
#include <string>
#include <vector>

namespace saccade {

struct WordPieceRules {
    bool lowerCase = true;           ///< lower-case and strip accents before the pieces
    std::string unknown = "[UNK]";   ///< the piece of a word no cut covers
    std::string continuation = "##"; ///< the prefix of a piece inside a word
    std::size_t maxWordCharacters = 100;
};

struct WordPieces {
    std::vector<std::string> pieces;
    std::vector<std::string> unknownWords;  ///< words read as the unknown piece, distinct, in order
};

/// The words BERT's basic tokenizer makes of `text` (before the pieces).
std::vector<std::string> basicWords(const std::string& text, bool lowerCase);

/// `text` as pieces of `vocabulary` (piece -> id) under `rules`.
WordPieces wordPieces(const std::string& text, const std::map<std::string, long>& vocabulary, const WordPieceRules& rules);

}  // namespace saccade
