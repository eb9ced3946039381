// Tests for image loading/saving and the procedural digit and scene generators.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "metrics/caption_metrics.h"
#include "common/atomic_file.h"
#include "data/image_io.h"
#include "data/procedural_digits.h"
#include "data/procedural_scenes.h"

using namespace saccade;
namespace fs = std::filesystem;

namespace {

// Encoded by OpenCV 4.6, as they are too involved to write by hand here: a 16x8 JPEG (left
// half red, right half blue) and an 8x8 grey one of 128 (quality 90); a 4x1 16-bit grey PNG of
// 0, 25700, 32896, 65535; a 2x1 RGBA PNG of opaque red and fully transparent green.
// 655 bytes
const unsigned char kColourJpeg[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x03, 0x02, 0x02, 0x03, 0x02, 0x02, 0x03,
    0x03, 0x03, 0x03, 0x04, 0x03, 0x03, 0x04, 0x05, 0x08, 0x05, 0x05, 0x04, 0x04, 0x05, 0x0a, 0x07,
    0x07, 0x06, 0x08, 0x0c, 0x0a, 0x0c, 0x0c, 0x0b, 0x0a, 0x0b, 0x0b, 0x0d, 0x0e, 0x12, 0x10, 0x0d,
    0x0e, 0x11, 0x0e, 0x0b, 0x0b, 0x10, 0x16, 0x10, 0x11, 0x13, 0x14, 0x15, 0x15, 0x15, 0x0c, 0x0f,
    0x17, 0x18, 0x16, 0x14, 0x18, 0x12, 0x14, 0x15, 0x14, 0xff, 0xdb, 0x00, 0x43, 0x01, 0x03, 0x04,
    0x04, 0x05, 0x04, 0x05, 0x09, 0x05, 0x05, 0x09, 0x14, 0x0d, 0x0b, 0x0d, 0x14, 0x14, 0x14, 0x14,
    0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14,
    0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14,
    0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0x14, 0xff, 0xc0,
    0x00, 0x11, 0x08, 0x00, 0x08, 0x00, 0x10, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
    0x01, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
    0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03, 0x03, 0x02, 0x04, 0x03, 0x05,
    0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21,
    0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23,
    0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17,
    0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
    0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a,
    0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
    0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
    0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5,
    0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1,
    0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xc4, 0x00, 0x1f, 0x01, 0x00, 0x03,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x11, 0x00,
    0x02, 0x01, 0x02, 0x04, 0x04, 0x03, 0x04, 0x07, 0x05, 0x04, 0x04, 0x00, 0x01, 0x02, 0x77, 0x00,
    0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13,
    0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15,
    0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27,
    0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
    0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6,
    0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4,
    0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9,
    0xfa, 0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00, 0xf9,
    0x6a, 0xbc, 0x46, 0x8a, 0x2b, 0xf6, 0x1f, 0xa3, 0xd7, 0xfc, 0xcd, 0x7f, 0xee, 0x0f, 0xfe, 0xe5,
    0x3f, 0x7b, 0xf1, 0xd3, 0xfe, 0x65, 0xbf, 0xf7, 0x17, 0xff, 0x00, 0x71, 0x1f, 0xff, 0xd9,
};
// 331 bytes
const unsigned char kGreyJpeg[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x03, 0x02, 0x02, 0x03, 0x02, 0x02, 0x03,
    0x03, 0x03, 0x03, 0x04, 0x03, 0x03, 0x04, 0x05, 0x08, 0x05, 0x05, 0x04, 0x04, 0x05, 0x0a, 0x07,
    0x07, 0x06, 0x08, 0x0c, 0x0a, 0x0c, 0x0c, 0x0b, 0x0a, 0x0b, 0x0b, 0x0d, 0x0e, 0x12, 0x10, 0x0d,
    0x0e, 0x11, 0x0e, 0x0b, 0x0b, 0x10, 0x16, 0x10, 0x11, 0x13, 0x14, 0x15, 0x15, 0x15, 0x0c, 0x0f,
    0x17, 0x18, 0x16, 0x14, 0x18, 0x12, 0x14, 0x15, 0x14, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08,
    0x00, 0x08, 0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
    0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03,
    0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00,
    0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32,
    0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35,
    0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55,
    0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
    0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94,
    0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2,
    0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
    0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6,
    0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xda,
    0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x2b, 0xff, 0xd9,
};
// 74 bytes
const unsigned char kGrey16Png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x10, 0x00, 0x00, 0x00, 0x00, 0x8c,
    0xc7, 0x8c, 0x52, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44, 0x41, 0x54, 0x08, 0x1d, 0x63, 0x64,
    0x60, 0x48, 0x49, 0x91, 0x91, 0xa9, 0xaf, 0x07, 0x00, 0x06, 0x9f, 0x02, 0x00, 0x20, 0x13,
    0xe6, 0xb9, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};
// 74 bytes
const unsigned char kRgbaPng[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0xf4,
    0x22, 0x7f, 0x8a, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44, 0x41, 0x54, 0x08, 0x1d, 0x63, 0xfc,
    0xcf, 0xc0, 0xf0, 0x9f, 0xf1, 0x3f, 0x03, 0x23, 0x00, 0x10, 0x07, 0x03, 0x01, 0xdf, 0xff,
    0xdb, 0x49, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

std::string bytesOf(const unsigned char* data, size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

void put16le(std::string& s, std::uint32_t v) { s += char(v & 0xff), s += char(v >> 8 & 0xff); }
void put32le(std::string& s, std::uint32_t v) { put16le(s, v & 0xffff), put16le(s, v >> 16); }
void put16be(std::string& s, std::uint32_t v) { s += char(v >> 8 & 0xff), s += char(v & 0xff); }
void put32be(std::string& s, std::uint32_t v) { put16be(s, v >> 16), put16be(s, v & 0xffff); }

// An uncompressed BMP: 24-bit BGR for 3 channels, 8-bit with a grey palette for 1. Rows are
// stored bottom-up and padded to 4 bytes, as the format wants.
std::string makeBmp(const Image& im) {
    const int bpp = im.channels == 3 ? 24 : 8;
    const int stride = (im.width * bpp / 8 + 3) / 4 * 4;
    const int palette = bpp == 8 ? 1024 : 0;
    const std::uint32_t offset = 54 + palette, total = offset + stride * im.height;
    std::string s = "BM";
    put32le(s, total), put32le(s, 0), put32le(s, offset);
    put32le(s, 40), put32le(s, im.width), put32le(s, im.height), put16le(s, 1), put16le(s, bpp);
    put32le(s, 0), put32le(s, stride * im.height), put32le(s, 2835), put32le(s, 2835);
    put32le(s, bpp == 8 ? 256 : 0), put32le(s, 0);
    for (int i = 0; i < palette / 4; ++i) s += char(i), s += char(i), s += char(i), s += '\0';
    for (int y = im.height - 1; y >= 0; --y) {
        std::string row;
        for (int x = 0; x < im.width; ++x) {
            if (im.channels == 3) row += char(im.at(x, y, 2)), row += char(im.at(x, y, 1));
            row += char(im.at(x, y, 0));
        }
        row.resize(stride, '\0');
        s += row;
    }
    return s;
}

// An uncompressed single-strip TIFF, grey (BlackIsZero) or chunky RGB, in either byte order.
std::string makeTiff(const Image& im, bool bigEndian) {
    auto p16 = [&](std::string& s, std::uint32_t v) { bigEndian ? put16be(s, v) : put16le(s, v); };
    auto p32 = [&](std::string& s, std::uint32_t v) { bigEndian ? put32be(s, v) : put32le(s, v); };
    const int entries = 10;
    const std::uint32_t ifdEnd = 8 + 2 + 12 * entries + 4;
    const std::uint32_t bpsAt = ifdEnd, dataAt = ifdEnd + (im.channels == 3 ? 6 : 0);
    std::string s = bigEndian ? "MM" : "II";
    p16(s, 42), p32(s, 8), p16(s, entries);
    auto entry = [&](std::uint32_t tag, std::uint32_t type, std::uint32_t count,
                     std::uint32_t value) {
        p16(s, tag), p16(s, type), p32(s, count);
        if (type == 3 && count == 1)
            p16(s, value), p16(s, 0);  // SHORTs sit left in the field
        else
            p32(s, value);
    };
    entry(256, 3, 1, im.width);
    entry(257, 3, 1, im.height);
    entry(258, 3, im.channels, im.channels == 3 ? bpsAt : 8);
    entry(259, 3, 1, 1);                         // no compression
    entry(262, 3, 1, im.channels == 3 ? 2 : 1);  // RGB or BlackIsZero
    entry(273, 4, 1, dataAt);
    entry(277, 3, 1, im.channels);
    entry(278, 3, 1, im.height);
    entry(279, 4, 1, std::uint32_t(im.pixels.size()));
    entry(284, 3, 1, 1);  // chunky
    p32(s, 0);
    if (im.channels == 3) p16(s, 8), p16(s, 8), p16(s, 8);
    s.append(im.pixels.begin(), im.pixels.end());
    return s;
}

Image pattern(int w, int h, int channels) {
    Image im = Image::zeros(w, h, channels);
    for (size_t i = 0; i < im.pixels.size(); ++i) im.pixels[i] = std::uint8_t(i * 37 + 11);
    return im;
}

}  // namespace

// Outside the anonymous namespace: each TEST_F class derives from it and has external linkage.
class ImageIoTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("saccade-image-io-" + std::to_string(::getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = (m_dir / name).string();
        EXPECT_TRUE(writeFileAtomic(path, bytes).ok());
        return path;
    }
    static void expectNamed(const Result<Image>& r, const std::string& path,
                            const std::string& phrase) {
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().find("'" + path + "'"), std::string::npos) << r.error();
        EXPECT_NE(r.error().find(phrase), std::string::npos) << r.error();
        EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
    }

    fs::path m_dir;
};

TEST_F(ImageIoTest, PngRoundTripsGreyAndColourExactly) {
    for (int channels : {1, 3}) {
        const Image original = pattern(7, 5, channels);
        const std::string path = (m_dir / ("p" + std::to_string(channels) + ".png")).string();
        ASSERT_TRUE(saveImagePng(original, path).ok());
        const auto loaded = loadImage(path);
        ASSERT_TRUE(loaded.ok()) << loaded.error();
        EXPECT_EQ(loaded->width, 7);
        EXPECT_EQ(loaded->height, 5);
        EXPECT_EQ(loaded->channels, channels);
        EXPECT_EQ(loaded->pixels, original.pixels);
    }
}

TEST_F(ImageIoTest, BmpAndTiffGiveTheirPixelsInRgbOrder) {
    if (!readsEveryImageFormat()) GTEST_SKIP() << "built with SACCADE_OPENCV_CODECS=OFF: PNG only";
    for (int channels : {1, 3}) {
        const Image original = pattern(5, 3, channels);  // odd width: BMP rows need padding
        for (const auto& [name, bytes] :
             {std::pair{std::string("a.bmp"), makeBmp(original)},
              std::pair{std::string("le.tif"), makeTiff(original, false)},
              std::pair{std::string("be.tiff"), makeTiff(original, true)}}) {
            const auto loaded = loadImage(write(name, bytes));
            ASSERT_TRUE(loaded.ok()) << name << ": " << loaded.error();
            EXPECT_EQ(loaded->width, 5) << name;
            EXPECT_EQ(loaded->height, 3) << name;
            EXPECT_EQ(loaded->channels, channels) << name;
            EXPECT_EQ(loaded->pixels, original.pixels) << name << " with " << channels;
        }
    }
}

TEST_F(ImageIoTest, JpegColourAndGrey) {
    if (!readsEveryImageFormat()) GTEST_SKIP() << "built with SACCADE_OPENCV_CODECS=OFF: PNG only";
    const auto colour = loadImage(write("c.jpg", bytesOf(kColourJpeg, sizeof kColourJpeg)));
    ASSERT_TRUE(colour.ok()) << colour.error();
    ASSERT_EQ(colour->width, 16);
    ASSERT_EQ(colour->height, 8);
    ASSERT_EQ(colour->channels, 3);
    // Left half red, right half blue (JPEG is lossy, and chroma is subsampled).
    EXPECT_GT(colour->at(2, 4, 0), 180);
    EXPECT_LT(colour->at(2, 4, 2), 60);
    EXPECT_GT(colour->at(13, 4, 2), 180);
    EXPECT_LT(colour->at(13, 4, 0), 60);

    const auto grey = loadImage(write("g.jpeg", bytesOf(kGreyJpeg, sizeof kGreyJpeg)));
    ASSERT_TRUE(grey.ok()) << grey.error();
    EXPECT_EQ(grey->channels, 1);
    EXPECT_EQ(grey->width, 8);
    EXPECT_NEAR(grey->at(3, 3), 128, 3);
}

TEST_F(ImageIoTest, ChannelOptionConverts) {
    Image red = Image::zeros(2, 1, 3);
    red.at(0, 0, 0) = 255;  // pure red
    red.at(1, 0, 2) = 255;  // pure blue
    const std::string path = (m_dir / "rb.png").string();
    ASSERT_TRUE(saveImagePng(red, path).ok());
    ImageLoadOptions toGrey;
    toGrey.channels = 1;
    const auto grey = loadImage(path, toGrey);
    ASSERT_TRUE(grey.ok()) << grey.error();
    ASSERT_EQ(grey->channels, 1);
    EXPECT_NEAR(grey->at(0, 0), 76, 1);  // 0.299 * 255: proves red was read as red
    EXPECT_NEAR(grey->at(1, 0), 29, 1);  // 0.114 * 255

    const std::string greyPath = (m_dir / "g.png").string();
    ASSERT_TRUE(saveImagePng(pattern(3, 2, 1), greyPath).ok());
    ImageLoadOptions toRgb;
    toRgb.channels = 3;
    const auto rgb = loadImage(greyPath, toRgb);
    ASSERT_TRUE(rgb.ok()) << rgb.error();
    ASSERT_EQ(rgb->channels, 3);
    EXPECT_EQ(rgb->at(2, 1, 0), pattern(3, 2, 1).at(2, 1));
    EXPECT_EQ(rgb->at(2, 1, 2), pattern(3, 2, 1).at(2, 1));
}

TEST_F(ImageIoTest, SixteenBitsBecomeEightAndAlphaIsDropped) {
    const auto deep = decodeImage(bytesOf(kGrey16Png, sizeof kGrey16Png), "deep.png");
    ASSERT_TRUE(deep.ok()) << deep.error();
    ASSERT_EQ(deep->channels, 1);
    EXPECT_EQ(deep->pixels, (std::vector<std::uint8_t>{0, 100, 128, 255}));

    const auto rgba = decodeImage(bytesOf(kRgbaPng, sizeof kRgbaPng), "rgba.png");
    ASSERT_TRUE(rgba.ok()) << rgba.error();
    ASSERT_EQ(rgba->channels, 3);
    EXPECT_EQ(rgba->pixels, (std::vector<std::uint8_t>{255, 0, 0, 0, 255, 0}));
}

TEST_F(ImageIoTest, PixelLimitIsCheckedWithTheSizeInTheMessage) {
    const std::string path = (m_dir / "small.png").string();
    ASSERT_TRUE(saveImagePng(pattern(5, 4, 1), path).ok());
    ImageLoadOptions tiny;
    tiny.maxPixels = 19;
    const auto refused = loadImage(path, tiny);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "'" + path + "' is 5 x 4 = 20 pixels, over the limit of 19 pixels");
    tiny.maxPixels = 20;
    EXPECT_TRUE(loadImage(path, tiny).ok());
}

TEST_F(ImageIoTest, HugeHeadersAreRefusedWithoutDecoding) {
    // Each file is only a header: decoding it would fail as corrupt, so the size message proves
    // that the limit was checked first.
    std::string png("\x89PNG\r\n\x1a\n", 8);
    put32be(png, 13), png += "IHDR", put32be(png, 100000), put32be(png, 100000);
    png += std::string("\x08\x02\x00\x00\x00", 5), put32be(png, 0);
    const std::string pngPath = write("big.png", png);
    const auto r = loadImage(pngPath);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "'" + pngPath +
                             "' is 100000 x 100000 = 10000 megapixels, over the limit of 64 "
                             "megapixels");

    // A DHT (C4) segment comes first: it must not be taken for a frame header.
    std::string jpeg("\xff\xd8", 2);
    jpeg += std::string("\xff\xe0", 2), put16be(jpeg, 16), jpeg += std::string("JFIF\0", 5);
    jpeg += std::string(9, '\x01');
    jpeg += std::string("\xff\xc4", 2), put16be(jpeg, 20), jpeg += std::string(18, '\x02');
    jpeg += std::string("\xff\xc0", 2), put16be(jpeg, 17), jpeg += '\x08';
    put16be(jpeg, 30000), put16be(jpeg, 40000), jpeg += std::string(10, '\0');
    expectNamed(loadImage(write("big.jpg", jpeg)), (m_dir / "big.jpg").string(),
                "is 40000 x 30000 = 1200 megapixels, over the limit of 64 megapixels");

    std::string bmp = "BM";
    put32le(bmp, 54), put32le(bmp, 0), put32le(bmp, 54), put32le(bmp, 40);
    put32le(bmp, 20000), put32le(bmp, std::uint32_t(-20000));  // negative height: top-down
    put16le(bmp, 1), put16le(bmp, 24), bmp += std::string(24, '\0');
    expectNamed(loadImage(write("big.bmp", bmp)), (m_dir / "big.bmp").string(),
                "is 20000 x 20000 = 400 megapixels, over the limit of 64 megapixels");

    std::string tiff = "MM";
    put16be(tiff, 42), put32be(tiff, 8), put16be(tiff, 2);
    put16be(tiff, 256), put16be(tiff, 4), put32be(tiff, 1), put32be(tiff, 100000);
    put16be(tiff, 257), put16be(tiff, 4), put32be(tiff, 1), put32be(tiff, 90000);
    put32be(tiff, 0);
    expectNamed(loadImage(write("big.tif", tiff)), (m_dir / "big.tif").string(),
                "is 100000 x 90000 = 9000 megapixels");
}

TEST_F(ImageIoTest, BadFilesGiveOneLineErrorsNamingThem) {
    const std::string missing = (m_dir / "missing.png").string();
    expectNamed(loadImage(missing), missing, "No such file");

    const std::string empty = write("empty.png", "");
    expectNamed(loadImage(empty), empty, "empty");

    const std::string text = write("notes.png", "these are notes, not pixels\n");
    expectNamed(loadImage(text), text, "not a PNG, JPEG, BMP or TIFF image");

    Image noisy = pattern(64, 64, 3);
    const std::string good = (m_dir / "good.png").string();
    ASSERT_TRUE(saveImagePng(noisy, good).ok());
    const std::string bytes = *readFile(good);
    const std::string truncated = write("truncated.png", bytes.substr(0, bytes.size() / 2));
    expectNamed(loadImage(truncated), truncated, "corrupt");

    std::string garbled = bytes;
    for (size_t i = 40; i < garbled.size(); i += 3) garbled[i] = char(garbled[i] ^ 0x5a);
    const std::string corrupt = write("corrupt.png", garbled);
    expectNamed(loadImage(corrupt), corrupt, "corrupt");

    const std::string headerOnly = write("stub.jpg", std::string("\xff\xd8\xff\xd9", 4));
    expectNamed(loadImage(headerOnly), headerOnly, "corrupt");

    expectNamed(loadImage(m_dir.string()), m_dir.string(), "folder");
    expectNamed(decodeImage("", "clipboard"), "clipboard", "empty");
}

TEST_F(ImageIoTest, SaveRefusesBadImagesAndPaths) {
    const auto noDir = saveImagePng(pattern(2, 2, 1), (m_dir / "no" / "x.png").string());
    ASSERT_FALSE(noDir.ok());
    EXPECT_NE(noDir.error().find("x.png"), std::string::npos) << noDir.error();
    Image broken = pattern(2, 2, 1);
    broken.pixels.pop_back();
    EXPECT_FALSE(saveImagePng(broken, (m_dir / "y.png").string()).ok());
    EXPECT_FALSE(saveImagePng(Image{}, (m_dir / "z.png").string()).ok());
    const Image colour = pattern(3, 2, 3);
    const Image copy = colour;
    ASSERT_TRUE(saveImagePng(colour, (m_dir / "c.png").string()).ok());
    EXPECT_EQ(colour.pixels, copy.pixels);  // saving must not touch the caller's pixels
    EXPECT_FALSE(fs::exists(m_dir / "y.png"));
}

// ---- Procedural digits ----

namespace {

struct Ink {
    int x0 = 28, y0 = 28, x1 = -1, y1 = -1;
    double mass = 0, cx = 0, cy = 0;
    int peak = 0;
};

Ink inkOf(const Image& im) {
    Ink ink;
    for (int y = 0; y < im.height; ++y) {
        for (int x = 0; x < im.width; ++x) {
            const int v = im.at(x, y);
            if (v == 0) continue;
            ink.x0 = std::min(ink.x0, x), ink.x1 = std::max(ink.x1, x);
            ink.y0 = std::min(ink.y0, y), ink.y1 = std::max(ink.y1, y);
            ink.mass += v, ink.cx += double(v) * x, ink.cy += double(v) * y;
            ink.peak = std::max(ink.peak, v);
        }
    }
    if (ink.mass > 0) ink.cx /= ink.mass, ink.cy /= ink.mass;
    return ink;
}

}  // namespace

TEST(ProceduralDigitsTest, ShapeSizesAndClasses) {
    const ProceduralDigits digits(7);
    EXPECT_EQ(digits.size(Split::Train), 60000);
    EXPECT_EQ(digits.size(Split::Test), 10000);
    EXPECT_EQ(digits.classNames(),
              (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}));
    const Image im = digits.image(Split::Test, 9999);
    EXPECT_EQ(im.width, 28);
    EXPECT_EQ(im.height, 28);
    EXPECT_EQ(im.channels, 1);
    EXPECT_EQ(im.pixels.size(), 28u * 28u);
}

TEST(ProceduralDigitsTest, ImagesAreAPureFunctionOfSplitIndexAndSeed) {
    const ProceduralDigits a(1), b(1), other(2);
    for (std::int64_t i : {0, 1, 59999}) {
        EXPECT_EQ(a.image(Split::Train, i).pixels, a.image(Split::Train, i).pixels) << i;
        EXPECT_EQ(a.image(Split::Train, i).pixels, b.image(Split::Train, i).pixels) << i;
        EXPECT_EQ(a.label(Split::Train, i), b.label(Split::Train, i)) << i;
        EXPECT_NE(a.image(Split::Train, i).pixels, other.image(Split::Train, i).pixels) << i;
    }
    EXPECT_NE(a.image(Split::Train, 0).pixels, a.image(Split::Train, 1).pixels);
    EXPECT_NE(a.image(Split::Train, 0).pixels, a.image(Split::Train, 10).pixels);
    int sameAcrossSplits = 0;
    for (std::int64_t i = 0; i < 50; ++i) {
        sameAcrossSplits += a.image(Split::Train, i).pixels == a.image(Split::Test, i).pixels;
    }
    EXPECT_EQ(sameAcrossSplits, 0);
}

TEST(ProceduralDigitsTest, ConcurrentCallsMatchSequentialOnes) {
    const ProceduralDigits digits(3);
    std::vector<std::vector<std::uint8_t>> expected(64), got(64);
    for (int i = 0; i < 64; ++i) expected[i] = digits.image(Split::Train, i).pixels;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = t; i < 64; i += 4) got[i] = digits.image(Split::Train, i).pixels;
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(got, expected);
}

TEST(ProceduralDigitsTest, LabelsAreBalancedDigits) {
    const ProceduralDigits digits(1);
    for (Split split : {Split::Train, Split::Test}) {
        int counts[10] = {};
        for (std::int64_t i = 0; i < 200; ++i) {
            const int label = digits.label(split, i);
            ASSERT_GE(label, 0);
            ASSERT_LE(label, 9);
            ++counts[label];
        }
        for (int c = 0; c < 10; ++c) EXPECT_EQ(counts[c], 20) << "class " << c;
    }
    std::vector<int> firstTen, secondTen;
    for (int i = 0; i < 10; ++i) firstTen.push_back(digits.label(Split::Train, i));
    for (int i = 10; i < 20; ++i) secondTen.push_back(digits.label(Split::Train, i));
    EXPECT_NE(firstTen, secondTen);  // shuffled per block, not i % 10
}

TEST(ProceduralDigitsTest, InkIsFittedAndCentredLikeMnist) {
    const ProceduralDigits digits(1);
    int touchingBorder = 0;
    for (std::int64_t i = 0; i < 300; ++i) {
        const Ink ink = inkOf(digits.image(Split::Train, i));
        ASSERT_GE(ink.x1, 0) << "blank digit " << i;
        EXPECT_GE(ink.peak, 200) << i;
        EXPECT_GT(ink.mass, 255 * 25) << i;
        const int w = ink.x1 - ink.x0 + 1, h = ink.y1 - ink.y0 + 1;
        EXPECT_LE(std::max(w, h), 21) << i;
        EXPECT_GE(std::max(w, h), 18) << i;
        EXPECT_NEAR(ink.cx, 13.5, 2.0) << i;
        EXPECT_NEAR(ink.cy, 13.5, 2.0) << i;
        touchingBorder += ink.x0 == 0 || ink.y0 == 0 || ink.x1 == 27 || ink.y1 == 27;
    }
    EXPECT_LE(touchingBorder, 6);
}

TEST(ProceduralDigitsTest, LabelsMatchTheDrawnGlyphs) {
    // A "1" has far less ink than a "0" or an "8": a label that disagreed with the glyph drawn
    // would wash this difference out.
    const ProceduralDigits digits(5);
    double ink[10] = {};
    int count[10] = {};
    for (std::int64_t i = 0; i < 400; ++i) {
        const int label = digits.label(Split::Test, i);
        ink[label] += inkOf(digits.image(Split::Test, i)).mass;
        ++count[label];
    }
    const auto mean = [&](int c) { return ink[c] / count[c]; };
    EXPECT_LT(mean(1), 0.75 * mean(0));
    EXPECT_LT(mean(1), 0.75 * mean(8));
    EXPECT_LT(mean(7), mean(8));
}

// ---- Procedural scenes ----

namespace {

bool isColour(const std::string& name, int r, int g, int b) {
    if (name == "red") return r > 150 && g < 100 && b < 100;
    if (name == "green") return g > 140 && r < 110 && b < 110;
    if (name == "blue") return b > 180 && r < 110 && g < 140;
    if (name == "yellow") return r > 180 && g > 170 && b < 100;
    if (name == "white") return r > 200 && g > 200 && b > 200;
    if (name == "purple") return r > 110 && b > 160 && g < 110;
    ADD_FAILURE() << "unknown colour " << name;
    return false;
}

bool relationHolds(const std::string& word, const Box& a, const Box& b) {
    if (word == "left") return a.x + a.w <= b.x;
    if (word == "right") return b.x + b.w <= a.x;
    if (word == "above") return a.y + a.h <= b.y;
    if (word == "below") return b.y + b.h <= a.y;
    ADD_FAILURE() << "unknown relation " << word;
    return false;
}

}  // namespace

TEST(ProceduralScenesTest, VocabularyStartsWithSpecialTokensAndIsUnique) {
    const auto vocab = sceneVocabulary();
    ASSERT_GE(vocab.size(), 8u);
    EXPECT_EQ(vocab[0], "<start>");
    EXPECT_EQ(vocab[1], "<end>");
    EXPECT_EQ(vocab[2], "<pad>");
    EXPECT_EQ(vocab[3], "<unk>");
    EXPECT_EQ(std::set<std::string>(vocab.begin(), vocab.end()).size(), vocab.size());
    EXPECT_EQ(sceneShapes(), (std::vector<std::string>{"circle", "square", "triangle", "cross"}));
}

TEST(ProceduralScenesTest, ScenesAreAPureFunctionOfTheirInputs) {
    const SceneOptions options;
    const Sample a = renderScene(options, Split::Train, 5);
    const Sample b = renderScene(options, Split::Train, 5);
    EXPECT_EQ(a.image.pixels, b.image.pixels);
    EXPECT_EQ(a.captionWords, b.captionWords);
    EXPECT_EQ(a.wordObject, b.wordObject);
    EXPECT_NE(a.image.pixels, renderScene(options, Split::Train, 6).image.pixels);
    EXPECT_NE(a.image.pixels, renderScene(options, Split::Test, 5).image.pixels);
    SceneOptions reseeded = options;
    reseeded.seed = 2;
    EXPECT_NE(a.image.pixels, renderScene(reseeded, Split::Train, 5).image.pixels);
}

TEST(ProceduralScenesTest, CaptionsDescribeTheScene) {
    const auto vocab = sceneVocabulary();
    const std::set<std::string> known(vocab.begin(), vocab.end());
    const auto shapes = sceneShapes();
    std::set<std::string> seenWords;
    int objectCounts[4] = {};
    for (int size : {64, 96}) {
        SceneOptions options;
        options.size = size;
        for (std::int64_t i = 0; i < 300; ++i) {
            const Sample s = renderScene(options, i % 2 ? Split::Test : Split::Train, i);
            SCOPED_TRACE("size " + std::to_string(size) + " scene " + std::to_string(i));
            ASSERT_EQ(s.image.width, size);
            ASSERT_EQ(s.image.height, size);
            ASSERT_EQ(s.image.channels, 3);
            const int n = int(s.objects.size());
            ASSERT_GE(n, 1);
            ASSERT_LE(n, 3);
            ++objectCounts[n];
            EXPECT_EQ(s.box, s.objects[0].box);
            EXPECT_EQ(s.label, s.objects[0].label);
            ASSERT_EQ(s.wordObject.size(), s.captionWords.size());

            std::vector<std::string> described(n);
            for (size_t w = 0; w < s.captionWords.size(); ++w) {
                EXPECT_TRUE(known.count(s.captionWords[w])) << s.captionWords[w];
                EXPECT_NE(s.captionWords[w].front(), '<');
                seenWords.insert(s.captionWords[w]);
                ASSERT_GE(s.wordObject[w], -1);
                ASSERT_LT(s.wordObject[w], n);
                if (s.wordObject[w] >= 0) {
                    auto& d = described[s.wordObject[w]];
                    d += (d.empty() ? "" : " ") + s.captionWords[w];
                }
            }
            for (int k = 0; k < n; ++k) {
                const LabeledBox& o = s.objects[k];
                // The words pointing at an object are its name: "size colour shape".
                EXPECT_EQ(described[k], o.name);
                const auto parts = splitWords(o.name);
                ASSERT_EQ(parts.size(), 3u) << o.name;
                ASSERT_GE(o.label, 0);
                ASSERT_LT(o.label, int(shapes.size()));
                EXPECT_EQ(parts[2], shapes[o.label]);
                EXPECT_GE(o.box.x, 0);
                EXPECT_GE(o.box.y, 0);
                EXPECT_LE(o.box.x + o.box.w, size);
                EXPECT_LE(o.box.y + o.box.h, size);
                const int cx = int(o.box.x + o.box.w / 2), cy = int(o.box.y + o.box.h / 2);
                EXPECT_TRUE(isColour(parts[1], s.image.at(cx, cy, 0), s.image.at(cx, cy, 1),
                                     s.image.at(cx, cy, 2)))
                    << o.name << " has centre colour " << int(s.image.at(cx, cy, 0)) << ","
                    << int(s.image.at(cx, cy, 1)) << "," << int(s.image.at(cx, cy, 2));
                // Squares fill their box's corner (without antialiasing); circles, crosses and
                // triangles leave it as background.
                const int bx = int(o.box.x), by = int(o.box.y);
                for (int c = 0; c < 3; ++c) {
                    if (parts[2] == "square") {
                        EXPECT_EQ(s.image.at(bx, by, c), s.image.at(cx, cy, c)) << o.name;
                    } else {
                        EXPECT_EQ(s.image.at(bx, by, c), s.image.at(0, 0, c)) << o.name;
                    }
                }
                for (int j = 0; j < k; ++j) {
                    EXPECT_EQ(o.box.intersectionArea(s.objects[j].box), 0.0);
                    EXPECT_NE(o.name, s.objects[j].name);  // captions stay unambiguous
                }
            }
            // Each relation word joins the object mentioned last and the one mentioned next.
            const auto& words = s.captionWords;
            for (size_t w = 0; w < words.size(); ++w) {
                if (words[w] != "left" && words[w] != "right" && words[w] != "above" &&
                    words[w] != "below")
                    continue;
                int before = -1, after = -1;
                for (size_t v = 0; v < w; ++v) {
                    if (s.wordObject[v] >= 0) before = s.wordObject[v];
                }
                for (size_t v = words.size(); v-- > w;) {
                    if (s.wordObject[v] >= 0) after = s.wordObject[v];
                }
                ASSERT_GE(before, 0);
                ASSERT_GT(after, before);
                EXPECT_TRUE(relationHolds(words[w], s.objects[before].box, s.objects[after].box))
                    << words[w] << " between objects " << before << " and " << after;
            }
        }
    }
    // Every word of the vocabulary gets used, and every object count occurs.
    for (size_t v = 4; v < vocab.size(); ++v) EXPECT_TRUE(seenWords.count(vocab[v])) << vocab[v];
    EXPECT_GT(objectCounts[1], 50);
    EXPECT_GT(objectCounts[2], 50);
    EXPECT_GT(objectCounts[3], 50);
}

TEST(ProceduralScenesTest, CrowdedScenesStillPlaceEveryObject) {
    SceneOptions options;
    options.minObjects = options.maxObjects = 3;
    for (std::int64_t i = 0; i < 200; ++i) {
        const Sample s = renderScene(options, Split::Train, i);
        EXPECT_EQ(s.objects.size(), 3u) << i;
        // np rel np "which" "is" rel np, with relations of one or two words.
        EXPECT_GE(s.captionWords.size(), 16u) << i;
        EXPECT_LE(s.captionWords.size(), 18u) << i;
        EXPECT_NE(std::find(s.captionWords.begin(), s.captionWords.end(), "which"),
                  s.captionWords.end())
            << i;
    }
}
