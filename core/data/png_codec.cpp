#include "data/png_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>

namespace saccade {

// A named namespace, not an anonymous one: unity batches join sources, and Header or Chunks exist elsewhere.
namespace pngcodec {

constexpr char kSignature[] = "\x89PNG\r\n\x1a\n";

std::uint32_t bigEndian(const std::string& b, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return v;
}

struct Header {
    std::uint32_t width = 0, height = 0;
    int bitDepth = 0, colourType = 0, interlace = 0;
    int samplesPerPixel() const {
        switch (colourType) {
            case 2: return 3;
            case 4: return 2;
            case 6: return 4;
            default: return 1;  // grey, palette
        }
    }
};

struct Chunks {
    Header header;
    std::string palette;  ///< RGB triples
    std::string data;     ///< the IDAT chunks, joined
};

std::optional<std::string> headerProblem(const Header& h) {
    if (h.width == 0 || h.height == 0) return "its width or height is 0";
    const int d = h.bitDepth;
    const bool ok = (h.colourType == 0 && (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)) ||
                    (h.colourType == 3 && (d == 1 || d == 2 || d == 4 || d == 8)) ||
                    ((h.colourType == 2 || h.colourType == 4 || h.colourType == 6) && (d == 8 || d == 16));
    if (!ok) return "colour type " + std::to_string(h.colourType) + " with bit depth " + std::to_string(d) + " is not valid PNG";
    if (h.interlace != 0) return "it is interlaced (Adam7), which this build reads only with OpenCV's codecs";
    return std::nullopt;
}

Result<Chunks> readChunks(const std::string& b) {
    if (b.size() < 8 || b.compare(0, 8, kSignature, 8) != 0) return Error{"it is not a PNG"};
    Chunks c;
    bool haveHeader = false;
    for (std::size_t at = 8; at + 12 <= b.size();) {
        const std::size_t length = bigEndian(b, at);
        if (length > b.size() - at - 12) return Error{"it is truncated inside a chunk"};
        const std::string type = b.substr(at + 4, 4);
        const std::size_t body = at + 8;
        if (type == "IHDR" && length == 13) {
            c.header = {bigEndian(b, body), bigEndian(b, body + 4), static_cast<std::uint8_t>(b[body + 8]),
                        static_cast<std::uint8_t>(b[body + 9]), static_cast<std::uint8_t>(b[body + 12])};
            if (b[body + 10] != 0 || b[body + 11] != 0) return Error{"it uses an unknown compression or filter method"};
            haveHeader = true;
        } else if (type == "PLTE") {
            c.palette = b.substr(body, length);
        } else if (type == "IDAT") {
            c.data.append(b, body, length);
        } else if (type == "IEND") {
            break;
        }
        at = body + length + 4;
    }
    if (!haveHeader) return Error{"it has no valid IHDR header"};
    if (auto problem = headerProblem(c.header)) return Error{*problem};
    if (c.header.colourType == 3 && (c.palette.empty() || c.palette.size() % 3 != 0))
        return Error{"its palette is missing or malformed"};
    return c;
}

/// Inflates exactly `expected` bytes: fewer or more is an error.
Result<std::string> inflateExactly(const std::string& in, std::size_t expected) {
    std::string out(expected + 1, '\0');  // one spare byte shows data beyond the expected size
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return Error{"zlib could not start"};
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&z, Z_FINISH);
    const std::size_t produced = out.size() - z.avail_out;
    inflateEnd(&z);
    if (status != Z_STREAM_END && status != Z_BUF_ERROR) return Error{"its compressed pixel data is damaged"};
    if (produced < expected) return Error{"its pixel data is shorter than its size says"};
    if (produced > expected || status != Z_STREAM_END) return Error{"its pixel data is longer than its size says"};
    out.resize(expected);
    return out;
}

int paeth(int a, int b, int c) {
    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/// Undoes the per-row filters in place; each row keeps its leading filter byte.
std::optional<std::string> unfilter(std::string& raw, std::size_t rows, std::size_t rowBytes, std::size_t bpp) {
    auto* d = reinterpret_cast<std::uint8_t*>(raw.data());
    for (std::size_t y = 0; y < rows; ++y) {
        std::uint8_t* row = d + y * (rowBytes + 1) + 1;
        const std::uint8_t* up = y > 0 ? row - (rowBytes + 1) : nullptr;
        const int filter = row[-1];
        if (filter > 4) return "row " + std::to_string(y) + " has an unknown filter type " + std::to_string(filter);
        for (std::size_t x = 0; x < rowBytes; ++x) {
            const int a = x >= bpp ? row[x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= bpp ? up[x - bpp] : 0;
            const int predicted = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
            row[x] = static_cast<std::uint8_t>(row[x] + predicted);
        }
    }
    return std::nullopt;
}

/// Sample `i` of a row of `depth`-bit samples.
std::uint16_t sampleAt(const std::uint8_t* row, std::size_t i, int depth) {
    if (depth == 16) return static_cast<std::uint16_t>((row[2 * i] << 8) | row[2 * i + 1]);
    if (depth == 8) return row[i];
    const std::size_t bit = i * static_cast<std::size_t>(depth);
    const int shift = 8 - depth - static_cast<int>(bit % 8);
    return static_cast<std::uint16_t>((row[bit / 8] >> shift) & ((1 << depth) - 1));
}

Result<PngPixels> toPixels(const Chunks& c, const std::string& rows, std::size_t rowBytes) {
    const Header& h = c.header;
    PngPixels p;
    p.width = static_cast<int>(h.width);
    p.height = static_cast<int>(h.height);
    p.channels = h.colourType == 0 ? 1 : 3;  // alpha is dropped, grey + alpha becomes grey RGB
    p.depth = h.bitDepth == 16 ? 16 : 8;
    p.samples.resize(static_cast<std::size_t>(p.width) * p.height * p.channels);
    const int spp = h.samplesPerPixel();
    const int maxLow = (1 << h.bitDepth) - 1;  // grey of 1, 2 or 4 bits scales to 0..255
    auto* out = p.samples.data();
    for (std::size_t y = 0; y < h.height; ++y) {
        const auto* row = reinterpret_cast<const std::uint8_t*>(rows.data()) + y * (rowBytes + 1) + 1;
        for (std::size_t x = 0; x < h.width; ++x) {
            const std::size_t first = x * static_cast<std::size_t>(spp);
            if (h.colourType == 3) {
                const std::size_t index = sampleAt(row, first, h.bitDepth);
                if (3 * index + 2 >= c.palette.size()) return Error{"a pixel's palette index lies beyond its palette"};
                for (int k = 0; k < 3; ++k) *out++ = static_cast<std::uint8_t>(c.palette[3 * index + k]);
            } else if (h.colourType == 0 || h.colourType == 4) {
                std::uint16_t grey = sampleAt(row, first, h.bitDepth);
                if (h.bitDepth < 8) grey = static_cast<std::uint16_t>(grey * 255 / maxLow);
                for (int k = 0; k < p.channels; ++k) *out++ = grey;
            } else {
                for (int k = 0; k < 3; ++k) *out++ = sampleAt(row, first + k, h.bitDepth);
            }
        }
    }
    return p;
}

void appendChunk(std::string& out, const char* type, const std::string& body) {
    const auto be = [&](std::uint32_t v) {
        for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
    };
    be(static_cast<std::uint32_t>(body.size()));
    const std::size_t typeAt = out.size();
    out.append(type, 4);
    out += body;
    be(static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(out.data() + typeAt),
                                        static_cast<uInt>(4 + body.size()))));
}

}  // namespace pngcodec

Result<PngPixels> decodePng(const std::string& bytes) {
    auto chunks = pngcodec::readChunks(bytes);
    if (!chunks) return Error{chunks.error()};
    const pngcodec::Header& h = chunks->header;
    // Callers check the size against their own limit first (image_io: 64 million pixels); this one
    // keeps a direct call from allocating gigabytes for a forged header.
    if (std::uint64_t{h.width} * h.height > (std::uint64_t{1} << 28)) return Error{"it is too large to decode"};
    const std::uint64_t rowBits = std::uint64_t{h.width} * h.samplesPerPixel() * h.bitDepth;
    const std::uint64_t rowBytes = (rowBits + 7) / 8;
    const std::uint64_t total = (rowBytes + 1) * h.height;
    if (total > std::numeric_limits<std::uint32_t>::max() / 2) return Error{"it is too large to decode"};
    auto rows = pngcodec::inflateExactly(chunks->data, static_cast<std::size_t>(total));
    if (!rows) return Error{rows.error()};
    const std::size_t bpp = std::max<std::size_t>(1, static_cast<std::size_t>(h.samplesPerPixel() * h.bitDepth / 8));
    if (auto problem = pngcodec::unfilter(rows.value(), h.height, static_cast<std::size_t>(rowBytes), bpp)) return Error{*problem};
    return pngcodec::toPixels(*chunks, *rows, static_cast<std::size_t>(rowBytes));
}

std::string encodePng(const std::uint8_t* pixels, int width, int height, int channels) {
    const std::size_t rowBytes = static_cast<std::size_t>(width) * channels;
    std::string raw;
    raw.reserve((rowBytes + 1) * height);
    for (int y = 0; y < height; ++y) {
        raw.push_back('\0');  // filter type None
        raw.append(reinterpret_cast<const char*>(pixels) + y * rowBytes, rowBytes);
    }
    uLongf packedSize = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(packedSize, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &packedSize, reinterpret_cast<const Bytef*>(raw.data()),
              static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
    packed.resize(packedSize);

    std::string header;
    for (const std::uint32_t v : {static_cast<std::uint32_t>(width), static_cast<std::uint32_t>(height)})
        for (int s = 24; s >= 0; s -= 8) header.push_back(static_cast<char>((v >> s) & 0xFF));
    header += std::string{'\x08', channels == 1 ? '\x00' : '\x02', '\0', '\0', '\0'};
    std::string out(pngcodec::kSignature, 8);
    pngcodec::appendChunk(out, "IHDR", header);
    pngcodec::appendChunk(out, "IDAT", packed);
    pngcodec::appendChunk(out, "IEND", "");
    return out;
}

}  // namespace saccade
