#pragma once
// Text that came from outside (an imported model's class names, a typed caption or sentence) is
// shown on terminals, in HTML and SVG, and in Qt labels. Rather than escape it differently for
// each, text that cannot be shown as it is, is refused at the door: bytes that are not UTF-8,
// control characters (ESC and the terminal sequences it starts, NUL, DEL, C1), the line
// separators U+2028 and U+2029, and the Unicode direction overrides that reorder the text around
// them (U+202A-U+202E, U+2066-U+2069).

#include <cstddef>
#include <string>

#include "common/result.h"

namespace saccade {

/// Refuses `text` when it is longer than `maxBytes`, not valid UTF-8, or holds a control
/// character or a direction override; the message names `what` and the first offending
/// character (as U+XXXX) and its byte offset. Tabs and newlines are refused too unless
/// `allowNewlines`.
Result<std::string> checkDisplayText(const std::string& text, const std::string& what, std::size_t maxBytes,
                                     bool allowNewlines = false);

/// Text that must be shown though it came from outside and cannot be refused (a model's own error
/// message): every control character, direction override and byte that is not UTF-8 becomes a
/// visible escape (\x1B, \u202E, \xFF), and text longer than `maxBytes` is cut there, saying
/// how long it was.
std::string escapeDisplayText(const std::string& text, std::size_t maxBytes);

}  // namespace saccade
