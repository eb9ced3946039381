#pragma once
// Whole-file checks run before an image is decoded: decoders fill a truncated JPEG's missing rows
// with grey and print their own warnings, so a cut or damaged file is found here first and refused
// with one line. Each returns the problem, or nothing when the file is complete.

#include <optional>
#include <string>

namespace saccade {

/// Every chunk inside the file with a matching CRC-32, and the IEND chunk present.
std::optional<std::string> pngProblem(const std::string& bytes);

/// The marker segments in order up to the end-of-image marker (bytes after it are allowed).
std::optional<std::string> jpegProblem(const std::string& bytes);

/// Uncompressed BMP: the pixel array the header describes lies inside the file.
std::optional<std::string> bmpProblem(const std::string& bytes);

/// TIFF: the first directory's strips or tiles lie inside the file.
std::optional<std::string> tiffProblem(const std::string& bytes);

}  // namespace saccade
