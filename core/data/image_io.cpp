#include "data/image_io.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#if SACCADE_OPENCV_CODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include "data/image_integrity.h"
#include "data/png_codec.h"

namespace saccade {

namespace {

enum class Format { Png, Jpeg, Bmp, Tiff, Unknown };

struct Dimensions {
    std::int64_t width = 0, height = 0;
};

std::uint32_t readBe(const std::string& b, size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return v;
}

std::uint32_t readLe(const std::string& b, size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return v;
}

Format sniff(const std::string& b) {
    if (b.size() >= 8 && b.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0) return Format::Png;
    if (b.size() >= 3 && b.compare(0, 3, "\xff\xd8\xff", 3) == 0) return Format::Jpeg;
    if (b.size() >= 2 && b.compare(0, 2, "BM") == 0) return Format::Bmp;
    if (b.size() >= 4 && (b.compare(0, 4, "II*\0", 4) == 0 || b.compare(0, 4, "MM\0*", 4) == 0))
        return Format::Tiff;
    return Format::Unknown;
}

std::optional<Dimensions> pngDimensions(const std::string& b) {
    // The signature is followed by the IHDR chunk: length, type, width, height (big-endian).
    if (b.size() < 24 || b.compare(12, 4, "IHDR") != 0) return std::nullopt;
    return Dimensions{readBe(b, 16, 4), readBe(b, 20, 4)};
}

std::optional<Dimensions> jpegDimensions(const std::string& b) {
    size_t at = 2;  // after SOI
    while (at + 4 <= b.size()) {
        if (static_cast<std::uint8_t>(b[at]) != 0xFF) return std::nullopt;
        const auto marker = static_cast<std::uint8_t>(b[at + 1]);
        if (marker == 0xFF) {  // fill byte before a marker
            ++at;
            continue;
        }
        // Standalone markers carry no length field.
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {
            at += 2;
            continue;
        }
        if (marker == 0xD9 || marker == 0xDA) return std::nullopt;  // EOI or scan before a frame
        const std::uint32_t length = readBe(b, at + 2, 2);
        if (length < 2) return std::nullopt;
        // C4 (DHT), C8 (JPG extension) and CC (DAC) share the SOF range but are not frames.
        const bool frame =
            marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame) {
            if (at + 9 > b.size() || length < 7) return std::nullopt;
            return Dimensions{readBe(b, at + 7, 2), readBe(b, at + 5, 2)};
        }
        at += 2 + length;
    }
    return std::nullopt;
}

std::optional<Dimensions> bmpDimensions(const std::string& b) {
    if (b.size() < 26) return std::nullopt;
    const std::uint32_t dibSize = readLe(b, 14, 4);
    if (dibSize == 12) return Dimensions{readLe(b, 18, 2), readLe(b, 20, 2)};  // OS/2 core header
    const auto width = static_cast<std::int32_t>(readLe(b, 18, 4));
    const auto height = static_cast<std::int32_t>(readLe(b, 22, 4));  // negative: top-down rows
    return Dimensions{std::abs(static_cast<std::int64_t>(width)),
                      std::abs(static_cast<std::int64_t>(height))};
}

std::optional<Dimensions> tiffDimensions(const std::string& b) {
    // Reads ImageWidth (256) and ImageLength (257) from the first IFD; BigTIFF and odd layouts
    // return nothing and the caller checks after decoding instead.
    const bool little = b[0] == 'I';
    auto read = [&](size_t at, int bytes) {
        return little ? readLe(b, at, bytes) : readBe(b, at, bytes);
    };
    if (b.size() < 8) return std::nullopt;
    const std::uint32_t ifd = read(4, 4);
    if (static_cast<std::uint64_t>(ifd) + 2 > b.size()) return std::nullopt;
    const std::uint32_t entries = read(ifd, 2);
    std::optional<std::int64_t> width, height;
    for (std::uint32_t e = 0; e < entries; ++e) {
        const size_t at = ifd + 2 + static_cast<size_t>(e) * 12;
        if (at + 12 > b.size()) break;
        const std::uint32_t tag = read(at, 2), type = read(at + 2, 2);
        if (tag != 256 && tag != 257) continue;
        std::int64_t value = 0;
        if (type == 1)
            value = static_cast<std::uint8_t>(b[at + 8]);  // BYTE
        else if (type == 3)
            value = read(at + 8, 2);  // SHORT
        else if (type == 8)
            value = static_cast<std::int16_t>(read(at + 8, 2));  // SSHORT
        else if (type == 4)
            value = read(at + 8, 4);  // LONG
        else if (type == 9)
            value = static_cast<std::int32_t>(read(at + 8, 4));  // SLONG
        else
            return std::nullopt;
        (tag == 256 ? width : height) = value;
    }
    if (!width || !height) return std::nullopt;
    return Dimensions{*width, *height};
}

std::string formatPixels(std::int64_t pixels) {
    if (pixels < 1'000'000) return std::to_string(pixels) + " pixels";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(pixels) / 1e6);
    std::string s = text;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s + " megapixels";
}

std::optional<Error> checkSize(const Dimensions& d, const std::string& what,
                               const ImageLoadOptions& options) {
    if (d.width <= 0 || d.height <= 0) {
        return Error{"'" + what + "' is corrupt: its header gives a size of " +
                     std::to_string(d.width) + " x " + std::to_string(d.height)};
    }
    // Compared by division first: a header may claim 2^32 x 2^32, whose product overflows.
    if (d.width > options.maxPixels / d.height || d.width * d.height > options.maxPixels) {
        const std::int64_t pixels = d.width > INT64_MAX / d.height ? INT64_MAX : d.width * d.height;
        return Error{"'" + what + "' is " + std::to_string(d.width) + " x " +
                     std::to_string(d.height) + " = " + formatPixels(pixels) +
                     ", over the limit of " + formatPixels(options.maxPixels)};
    }
    return std::nullopt;
}

// Converts any depth OpenCV decodes to 8 bits; float data is taken to lie in [0, 1].
std::optional<cv::Mat> toEightBit(const cv::Mat& m) {
    cv::Mat out;
    switch (m.depth()) {
        case CV_8U:
            return m;
        case CV_16U:
            m.convertTo(out, CV_8U, 1.0 / 257.0);
            return out;
        case CV_32F:
        case CV_64F:
            m.convertTo(out, CV_8U, 255.0);
            return out;
        default:
            return std::nullopt;
    }
}

#if SACCADE_OPENCV_CODECS
/// OpenCV's imdecode(ANYCOLOR | ANYDEPTH): grey stays grey, colour is BGR without alpha, 16 bits stay.
Result<cv::Mat> decodePixels(const std::string& bytes, Format, const std::string& what) {
    cv::Mat decoded;
    try {
        const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8U, const_cast<char*>(bytes.data()));
        decoded = cv::imdecode(buffer, cv::IMREAD_ANYCOLOR | cv::IMREAD_ANYDEPTH);
    } catch (const cv::Exception& e) {
        return Error{"'" + what + "' could not be decoded: " + e.err};
    }
    if (decoded.empty()) return Error{"'" + what + "' is corrupt or not a supported image"};
    return decoded;
}
#else
/// The same samples from the built-in PNG codec (a build without OpenCV's imgcodecs reads PNG only).
Result<cv::Mat> decodePixels(const std::string& bytes, Format format, const std::string& what) {
    if (format != Format::Png)
        return Error{"'" + what + "' is not a PNG: this build reads PNG only (built with SACCADE_OPENCV_CODECS=OFF)"};
    auto png = decodePng(bytes);
    if (!png) return Error{"'" + what + "' could not be decoded: " + png.error()};
    const int type = CV_MAKETYPE(png->depth == 16 ? CV_16U : CV_8U, png->channels);
    cv::Mat decoded(png->height, png->width, type);
    const std::size_t n = png->samples.size();
    for (std::size_t i = 0; i < n; ++i) {
        // RGB to OpenCV's BGR order: the first and third sample of each pixel swap.
        const std::size_t k = png->channels == 3 ? i - i % 3 + (2 - i % 3) : i;
        if (png->depth == 16) decoded.ptr<std::uint16_t>()[k] = png->samples[i];
        else decoded.ptr<std::uint8_t>()[k] = static_cast<std::uint8_t>(png->samples[i]);
    }
    return decoded;
}
#endif

Result<Image> decodeChecked(const std::string& bytes, const std::string& what,
                            const ImageLoadOptions& options) {
    if (options.channels != 0 && options.channels != 1 && options.channels != 3) {
        return Error{"cannot load '" + what + "' with " + std::to_string(options.channels) +
                     " channels (use 0, 1 or 3)"};
    }
    if (bytes.empty()) return Error{"'" + what + "' is empty (0 bytes)"};
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
        return Error{"'" + what + "' is over 2 GB, too large to decode"};
    }
    const Format format = sniff(bytes);
    std::optional<Dimensions> dims;
    switch (format) {
        case Format::Png:
            dims = pngDimensions(bytes);
            break;
        case Format::Jpeg:
            dims = jpegDimensions(bytes);
            break;
        case Format::Bmp:
            dims = bmpDimensions(bytes);
            break;
        case Format::Tiff:
            dims = tiffDimensions(bytes);
            break;
        case Format::Unknown:
            return Error{"'" + what + "' is not a PNG, JPEG, BMP or TIFF image"};
    }
    // An image whose size cannot be read from its header is refused before decoding: the decoder
    // would allocate whatever the file claims before checking anything.
    if (!dims) return Error{"'" + what + "' is corrupt or truncated (cannot read its size)"};
    if (auto error = checkSize(*dims, what, options)) return *error;
    const auto problem = format == Format::Png    ? pngProblem(bytes)
                         : format == Format::Jpeg ? jpegProblem(bytes)
                         : format == Format::Bmp  ? bmpProblem(bytes)
                                                  : tiffProblem(bytes);
    if (problem) return Error{"'" + what + "' is corrupt: " + *problem};

    auto pixels = decodePixels(bytes, format, what);
    if (!pixels) return Error{pixels.error()};
    const cv::Mat decoded = *pixels;

    try {
        auto eight = toEightBit(decoded);
        if (!eight) return Error{"'" + what + "' has an unsupported pixel type"};
        cv::Mat m = *eight;
        if (m.channels() == 2) {  // grey + alpha: keep the grey
            cv::Mat grey;
            cv::extractChannel(m, grey, 0);
            m = grey;
        }
        const int source = m.channels();
        const int wanted = options.channels != 0 ? options.channels : (source == 1 ? 1 : 3);
        cv::Mat out = m;
        if (source == 3 || source == 4) {  // OpenCV decodes colour as BGR(A)
            const bool alpha = source == 4;
            const int code = wanted == 1 ? (alpha ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY)
                                         : (alpha ? cv::COLOR_BGRA2RGB : cv::COLOR_BGR2RGB);
            cv::cvtColor(m, out, code);
        } else if (source == 1 && wanted == 3) {
            cv::cvtColor(m, out, cv::COLOR_GRAY2RGB);
        } else if (source != 1) {
            return Error{"'" + what + "' has " + std::to_string(source) + " channels"};
        }
        if (!out.isContinuous()) out = out.clone();
        Image image;
        image.width = out.cols;
        image.height = out.rows;
        image.channels = out.channels();
        image.pixels.assign(out.data, out.data + out.total() * out.elemSize());
        return image;
    } catch (const cv::Exception& e) {
        return Error{"'" + what + "' could not be converted: " + e.err};
    }
}

}  // namespace

Result<Image> loadImage(const std::string& path, const ImageLoadOptions& options) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return Error{"'" + path + "' is a folder, not an image file"};
    }
    auto bytes = readFile(path);
    if (!bytes) return Error{bytes.error()};
    return decodeChecked(*bytes, path, options);
}

Result<Image> decodeImage(const std::string& bytes, const std::string& what,
                          const ImageLoadOptions& options) {
    return decodeChecked(bytes, what, options);
}

Result<std::string> encodeImagePng(const Image& image) {
    if (image.empty() || image.width <= 0 || image.height <= 0 ||
        (image.channels != 1 && image.channels != 3) ||
        image.pixels.size() != static_cast<size_t>(image.width) * image.height * image.channels) {
        return Error{"the image is empty or malformed"};
    }
#if !SACCADE_OPENCV_CODECS
    return encodePng(image.pixels.data(), image.width, image.height, image.channels);
#else
    std::vector<std::uint8_t> encoded;
    try {
        const cv::Mat view(image.height, image.width, CV_8UC(image.channels),
                           const_cast<std::uint8_t*>(image.pixels.data()));
        // A fresh Mat for the swap: converting into a header on `view` would write the
        // caller's pixels.
        cv::Mat bgr;
        if (image.channels == 3)
            cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
        else
            bgr = view;
        if (!cv::imencode(".png", bgr, encoded)) return Error{"PNG encoding failed"};
    } catch (const cv::Exception& e) {
        return Error{e.err};
    }
    return std::string(encoded.begin(), encoded.end());
#endif
}

bool readsEveryImageFormat() { return SACCADE_OPENCV_CODECS; }

Result<Unit> saveImagePng(const Image& image, const std::string& path) {
    auto encoded = encodeImagePng(image);
    if (!encoded) return Error{"cannot save '" + path + "': " + encoded.error()};
    return writeFileAtomic(path, *encoded);
}

}  // namespace saccade
