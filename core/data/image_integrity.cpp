#include "data/image_integrity.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include <zlib.h>

namespace saccade {

namespace {
std::uint64_t be(const std::string& b, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return v;
}
std::uint64_t le(const std::string& b, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return v;
}
}  // namespace

std::optional<std::string> pngProblem(const std::string& b) {
    std::size_t at = 8;
    while (true) {
        if (at + 12 > b.size()) return "it is truncated (no IEND chunk)";
        const std::uint64_t length = be(b, at, 4);
        if (length > 0x7FFFFFFF || at + 12 + length > b.size()) return "it is truncated inside a chunk";
        const std::string type = b.substr(at + 4, 4);
        uLong crc = crc32(0L, Z_NULL, 0);
        crc = crc32(crc, reinterpret_cast<const Bytef*>(b.data() + at + 4), static_cast<uInt>(4 + length));
        if (crc != be(b, at + 8 + length, 4)) return "chunk '" + type + "' fails its CRC check (damaged data)";
        if (type == "IEND") return std::nullopt;
        at += 12 + length;
    }
}

std::optional<std::string> jpegProblem(const std::string& b) {
    std::size_t at = 2;  // after SOI
    bool scanned = false;
    while (true) {
        if (at + 2 > b.size()) return "it is truncated (no end-of-image marker)";
        if (static_cast<std::uint8_t>(b[at]) != 0xFF) return "a marker is missing where one should be (damaged data)";
        const auto marker = static_cast<std::uint8_t>(b[at + 1]);
        if (marker == 0xFF) {
            ++at;
            continue;
        }
        if (marker == 0xD9) return scanned ? std::nullopt : std::optional<std::string>("it ends before any image data");
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            at += 2;
            continue;
        }
        if (at + 4 > b.size()) return "it is truncated inside a marker";
        const std::uint64_t length = be(b, at + 2, 2);
        if (length < 2 || at + 2 + length > b.size()) return "it is truncated inside a marker segment";
        at += 2 + length;
        if (marker != 0xDA) continue;
        // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
        scanned = true;
        while (true) {
            if (at + 1 >= b.size()) return "it is truncated inside the image data";
            if (static_cast<std::uint8_t>(b[at]) == 0xFF) {
                const auto next = static_cast<std::uint8_t>(b[at + 1]);
                if (next != 0x00 && next != 0xFF && !(next >= 0xD0 && next <= 0xD7)) break;
            }
            ++at;
        }
    }
}

std::optional<std::string> bmpProblem(const std::string& b) {
    if (b.size() < 34) return "it is truncated (header incomplete)";
    const std::uint64_t pixelsAt = le(b, 10, 4);
    const std::uint64_t dib = le(b, 14, 4);
    if (dib < 40) return std::nullopt;  // OS/2 core header: checked by the decoder
    const std::uint64_t width = static_cast<std::uint64_t>(std::abs(static_cast<std::int64_t>(static_cast<std::int32_t>(le(b, 18, 4)))));
    const std::uint64_t height = static_cast<std::uint64_t>(std::abs(static_cast<std::int64_t>(static_cast<std::int32_t>(le(b, 22, 4)))));
    const std::uint64_t bits = le(b, 28, 2), compression = le(b, 30, 4);
    if (compression != 0 && compression != 3) return std::nullopt;  // RLE: sizes vary, decoder checks
    const std::uint64_t row = (bits * width + 31) / 32 * 4;
    if (row != 0 && height > (UINT64_MAX / 2) / row) return "its header gives an impossible size";
    if (pixelsAt + row * height > b.size()) return "it is truncated (the pixel rows run past the end of the file)";
    return std::nullopt;
}

std::optional<std::string> tiffProblem(const std::string& b) {
    if (b.size() < 8) return "it is truncated (header incomplete)";
    const bool little = b[0] == 'I';
    auto read = [&](std::size_t at, int n) { return little ? le(b, at, n) : be(b, at, n); };
    const std::uint64_t ifd = read(4, 4);
    if (ifd + 2 > b.size()) return "it is truncated (no image directory)";
    const std::uint64_t entries = read(ifd, 2);
    if (ifd + 2 + entries * 12 > b.size()) return "it is truncated inside the image directory";
    // Offsets (273 strips, 324 tiles) and byte counts (279, 325): every piece inside the file.
    std::vector<std::uint64_t> offsets, counts;
    auto values = [&](std::size_t entry) {
        std::vector<std::uint64_t> out;
        const std::uint64_t type = read(entry + 2, 2), count = read(entry + 4, 4);
        const int size = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0;
        if (size == 0 || count > (1u << 24)) return out;
        const std::uint64_t at = count * size <= 4 ? entry + 8 : read(entry + 8, 4);
        if (at + count * size > b.size()) return out;
        for (std::uint64_t i = 0; i < count; ++i) out.push_back(read(at + i * size, size));
        return out;
    };
    for (std::uint64_t e = 0; e < entries; ++e) {
        const std::size_t entry = ifd + 2 + e * 12;
        const std::uint64_t tag = read(entry, 2);
        if (tag == 273 || tag == 324) offsets = values(entry);
        if (tag == 279 || tag == 325) counts = values(entry);
    }
    if (offsets.empty() || offsets.size() != counts.size()) return std::nullopt;  // unusual layout: decoder checks
    for (std::size_t i = 0; i < offsets.size(); ++i)
        if (offsets[i] + counts[i] > b.size()) return "it is truncated (image data runs past the end of the file)";
    return std::nullopt;
}

}  // namespace saccade
