#pragma once
// Reader for the IDX format of (Fashion-)MNIST, gzip-compressed or plain.

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

struct IdxArray {
    std::vector<int> dims;             ///< e.g. {60000, 28, 28} or {60000}
    std::vector<std::uint8_t> data;    ///< product(dims) bytes, row-major
};

/// Reads an unsigned-byte IDX file with `expectedRank` dimensions (3 for images, 1 for labels).
/// Validates the magic number, the rank, the dimensions (positive, at most 2^31 bytes in all) and
/// the length: a truncated file, trailing bytes, a bad gzip stream or a wrong magic number is an
/// Error that names the file and says which.
Result<IdxArray> readIdxFile(const std::string& path, int expectedRank);

}  // namespace saccade
