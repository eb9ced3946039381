// The built-in PNG codec against PNGs made here sample by sample, every colour type, bit depth and
// row filter: decodePng and decodeImage (OpenCV's imdecode in the default build, the built-in codec
// with SACCADE_OPENCV_CODECS=OFF) must both give the pixels the file was made from.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "data/image_io.h"
#include "data/png_codec.h"

using namespace saccade;

namespace {

void putBe(std::string& out, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}

void chunk(std::string& out, const std::string& type, const std::string& body) {
    putBe(out, static_cast<std::uint32_t>(body.size()));
    const std::string typed = type + body;
    out += typed;
    putBe(out, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(typed.data()),
                                                static_cast<uInt>(typed.size()))));
}

/// Row `y` filtered with filter type y % 5 (None, Sub, Up, Average, Paeth).
std::string filtered(const std::vector<std::string>& rows, std::size_t y, std::size_t bpp) {
    const int filter = static_cast<int>(y % 5);
    const std::string& row = rows[y];
    std::string out(1, static_cast<char>(filter));
    for (std::size_t x = 0; x < row.size(); ++x) {
        const int a = x >= bpp ? static_cast<std::uint8_t>(row[x - bpp]) : 0;
        const int b = y > 0 ? static_cast<std::uint8_t>(rows[y - 1][x]) : 0;
        const int c = y > 0 && x >= bpp ? static_cast<std::uint8_t>(rows[y - 1][x - bpp]) : 0;
        const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
        const int paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        const int predicted = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth : 0;
        out.push_back(static_cast<char>(static_cast<std::uint8_t>(row[x]) - predicted));
    }
    return out;
}

struct Made {
    std::string png;
    Image expected;  ///< what decodeImage must give (8 bits, grey or RGB)
};

/// A width x height PNG of random samples of `depth` bits, colour type `type`, interlace `adam7`.
Made makePng(int width, int height, int type, int depth, unsigned seed, bool adam7 = false) {
    std::mt19937 rng(seed);
    const int spp = type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 1;
    const int levels = 1 << depth;
    std::string palette;
    for (int i = 0; type == 3 && i < levels; ++i)
        for (int k = 0; k < 3; ++k) palette.push_back(static_cast<char>(rng() % 256));
    Made m;
    m.expected.width = width;
    m.expected.height = height;
    m.expected.channels = type == 0 ? 1 : 3;
    std::vector<std::string> rows;
    for (int y = 0; y < height; ++y) {
        std::string row((static_cast<std::size_t>(width) * spp * depth + 7) / 8, '\0');
        for (int x = 0; x < width; ++x) {
            std::vector<int> s(spp);
            for (int k = 0; k < spp; ++k) {
                s[k] = static_cast<int>(rng() % levels);
                const std::size_t bit = (static_cast<std::size_t>(x) * spp + k) * depth;
                if (depth == 16) {
                    row[bit / 8] = static_cast<char>(s[k] >> 8);
                    row[bit / 8 + 1] = static_cast<char>(s[k] & 0xFF);
                } else {
                    row[bit / 8] = static_cast<char>(row[bit / 8] | (s[k] << (8 - depth - bit % 8)));
                }
            }
            const auto eight = [&](int v) {
                return static_cast<std::uint8_t>(depth == 16 ? std::lround(v / 257.0) : depth < 8 ? v * 255 / (levels - 1) : v);
            };
            if (type == 3) {
                for (int k = 0; k < 3; ++k) m.expected.pixels.push_back(static_cast<std::uint8_t>(palette[3 * s[0] + k]));
            } else if (type == 0 || type == 4) {
                for (int k = 0; k < m.expected.channels; ++k) m.expected.pixels.push_back(eight(s[0]));
            } else {
                for (int k = 0; k < 3; ++k) m.expected.pixels.push_back(eight(s[k]));
            }
        }
        rows.push_back(row);
    }
    std::string raw;
    const std::size_t bpp = std::max(1, spp * depth / 8);
    for (int y = 0; y < height; ++y) raw += filtered(rows, static_cast<std::size_t>(y), bpp);
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(size, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
              static_cast<uLong>(raw.size()), 9);
    packed.resize(size);
    std::string header;
    putBe(header, static_cast<std::uint32_t>(width));
    putBe(header, static_cast<std::uint32_t>(height));
    header += std::string{static_cast<char>(depth), static_cast<char>(type), '\0', '\0', adam7 ? '\1' : '\0'};
    m.png = std::string("\x89PNG\r\n\x1a\n", 8);
    chunk(m.png, "IHDR", header);
    if (type == 3) chunk(m.png, "PLTE", palette);
    chunk(m.png, "IDAT", packed);
    chunk(m.png, "IEND", "");
    return m;
}

}  // namespace

TEST(PngCodec, EveryColourTypeBitDepthAndFilterGivesTheSamplesItWasMadeFrom) {
    struct Case {
        int type, depth;
    };
    const Case cases[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1}, {3, 2},
                          {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
    unsigned seed = 1;
    for (const auto& c : cases) {
        const std::string name = "type " + std::to_string(c.type) + ", " + std::to_string(c.depth) + " bits";
        const Made m = makePng(13, 7, c.type, c.depth, seed++);  // odd width: partial bytes at row ends
        auto image = decodeImage(m.png, name);
        ASSERT_TRUE(image.ok()) << name << ": " << image.error();
        EXPECT_EQ(image->channels, m.expected.channels) << name;
        EXPECT_EQ(image->pixels, m.expected.pixels) << name;

        auto png = decodePng(m.png);
        ASSERT_TRUE(png.ok()) << name << ": " << png.error();
        EXPECT_EQ(png->depth, c.depth == 16 ? 16 : 8) << name;
        ASSERT_EQ(png->samples.size(), m.expected.pixels.size()) << name;
        if (c.depth != 16) {
            EXPECT_TRUE(std::equal(png->samples.begin(), png->samples.end(), m.expected.pixels.begin())) << name;
        }
    }
}

TEST(PngCodec, EncodedImagesDecodeToTheSamePixels) {
    for (const int channels : {1, 3}) {
        Image image;
        image.width = 17;
        image.height = 9;
        image.channels = channels;
        for (int i = 0; i < 17 * 9 * channels; ++i) image.pixels.push_back(static_cast<std::uint8_t>(i * 37 % 256));
        const auto encoded = encodeImagePng(image);
        ASSERT_TRUE(encoded.ok()) << encoded.error();
        const auto back = decodeImage(*encoded, "round trip");
        ASSERT_TRUE(back.ok()) << back.error();
        EXPECT_EQ(back->channels, channels);
        EXPECT_EQ(back->pixels, image.pixels);
        const auto own = decodePng(encodePng(image.pixels.data(), 17, 9, channels));
        ASSERT_TRUE(own.ok()) << own.error();
        EXPECT_TRUE(std::equal(own->samples.begin(), own->samples.end(), image.pixels.begin()));
    }
}

TEST(PngCodec, RefusesWhatItCannotReadInOneLine) {
    EXPECT_NE(decodePng(makePng(8, 8, 2, 8, 3, /*adam7=*/true).png).error().find("interlaced"), std::string::npos);
    Made odd = makePng(8, 8, 2, 8, 3);
    odd.png[24] = 7;  // the bit depth (decodePng leaves CRCs to the caller)
    EXPECT_NE(decodePng(odd.png).error().find("colour type 2 with bit depth 7"), std::string::npos);
    // The pixel data of an 8x8 image in the header of a 9x8 one: too short.
    Made small = makePng(8, 8, 0, 8, 4);
    small.png[19] = 9;
    EXPECT_NE(decodePng(small.png).error().find("shorter than its size"), std::string::npos);
    small.png[19] = 7;
    EXPECT_NE(decodePng(small.png).error().find("longer than its size"), std::string::npos);
    EXPECT_NE(decodePng("GIF89a").error().find("not a PNG"), std::string::npos);
    // A 1-bit header of 60000 x 60000 pixels is refused before anything is allocated.
    Made huge = makePng(8, 8, 0, 1, 5);
    for (int at : {16, 20}) {
        huge.png[at + 2] = '\xEA';
        huge.png[at + 3] = '\x60';
    }
    EXPECT_NE(decodePng(huge.png).error().find("too large"), std::string::npos);
}
