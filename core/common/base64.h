#pragma once
// Base64 (RFC 4648, with padding), for data: URLs in self-contained HTML.

#include <string>

namespace saccade {

std::string base64Encode(const std::string& bytes);

}  // namespace saccade
