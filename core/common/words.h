#pragma once
// Sentences as words: split on spaces and joined with single spaces (captions, run sets).

#include <string>
#include <vector>

namespace saccade {

/// Words of `text`, split on runs of spaces (leading and trailing spaces give no empty words).
std::vector<std::string> splitWords(const std::string& text);

/// `words` joined by single spaces ("" for none).
std::string joinWords(const std::vector<std::string>& words);

}  // namespace saccade
