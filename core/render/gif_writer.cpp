#include "render/gif_writer.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace saccade {

namespace {

constexpr int kBinBits = 5;  // histogram precision per channel: 32768 bins
constexpr int kBins = 1 << (3 * kBinBits);
constexpr int kMaxCodes = 4096;  // GIF LZW codes are at most 12 bits

using Rgb = std::array<std::uint8_t, 3>;

int binOf(int r, int g, int b) {
    constexpr int s = 8 - kBinBits;
    return ((r >> s) << (2 * kBinBits)) | ((g >> s) << kBinBits) | (b >> s);
}

Rgb pixelAt(const Image& f, std::size_t i) {
    if (f.channels == 1) return {f.pixels[i], f.pixels[i], f.pixels[i]};
    return {f.pixels[3 * i], f.pixels[3 * i + 1], f.pixels[3 * i + 2]};
}

struct Histogram {
    std::vector<std::uint32_t> count = std::vector<std::uint32_t>(kBins, 0);
    std::vector<std::array<std::uint64_t, 3>> sum =
        std::vector<std::array<std::uint64_t, 3>>(kBins, {0, 0, 0});
    Rgb mean(int bin) const {
        Rgb c{};
        for (int k = 0; k < 3; ++k)
            c[k] = std::uint8_t((sum[bin][k] + count[bin] / 2) / count[bin]);
        return c;
    }
};

// A box of histogram bins, bounds inclusive per channel, shrunk to its occupied bins.
struct ColourBox {
    std::array<int, 3> lo{}, hi{};
    std::uint64_t count = 0;

    template <typename F>
    void forEachBin(F&& f) const {
        for (int r = lo[0]; r <= hi[0]; ++r)
            for (int g = lo[1]; g <= hi[1]; ++g)
                for (int b = lo[2]; b <= hi[2]; ++b) f((r << (2 * kBinBits)) | (g << kBinBits) | b);
    }
    void shrink(const Histogram& h) {
        std::array<int, 3> nlo{31, 31, 31}, nhi{0, 0, 0};
        count = 0;
        forEachBin([&](int bin) {
            if (!h.count[bin]) return;
            count += h.count[bin];
            const int c[3] = {bin >> (2 * kBinBits), (bin >> kBinBits) & 31, bin & 31};
            for (int k = 0; k < 3; ++k) {
                nlo[k] = std::min(nlo[k], c[k]);
                nhi[k] = std::max(nhi[k], c[k]);
            }
        });
        lo = nlo, hi = nhi;
    }
    int longestAxis() const {
        int axis = 0;
        for (int k = 1; k < 3; ++k)
            if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
        return axis;
    }
    bool splittable() const { return hi[longestAxis()] > lo[longestAxis()]; }
};

// Median cut: split the box with the most pixels times extent at its pixel median until 256.
std::vector<Rgb> medianCut(const Histogram& h, std::vector<std::uint8_t>& lut) {
    ColourBox all;
    all.hi = {31, 31, 31};
    all.shrink(h);
    std::vector<ColourBox> boxes{all};
    while (boxes.size() < 256) {
        int best = -1;
        double bestScore = 0;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            const auto& b = boxes[i];
            const int a = b.longestAxis();
            const double score = double(b.count) * (b.hi[a] - b.lo[a]);
            if (b.splittable() && score > bestScore) best = int(i), bestScore = score;
        }
        if (best < 0) break;
        ColourBox low = boxes[best], high = boxes[best];
        const int axis = low.longestAxis();
        std::vector<std::uint64_t> slice(32, 0);
        boxes[best].forEachBin([&](int bin) {
            const int c[3] = {bin >> (2 * kBinBits), (bin >> kBinBits) & 31, bin & 31};
            slice[c[axis]] += h.count[bin];
        });
        int cut = low.lo[axis];
        for (std::uint64_t acc = slice[cut]; cut + 1 < low.hi[axis] && 2 * acc < low.count;)
            acc += slice[++cut];
        low.hi[axis] = cut;
        high.lo[axis] = cut + 1;
        low.shrink(h);
        high.shrink(h);
        boxes[best] = low;
        boxes.push_back(high);
    }
    std::vector<Rgb> palette;
    for (const auto& b : boxes) {
        std::array<std::uint64_t, 3> s{0, 0, 0};
        b.forEachBin([&](int bin) {
            for (int k = 0; k < 3; ++k) s[k] += h.sum[bin][k];
        });
        Rgb c{};
        for (int k = 0; k < 3; ++k) c[k] = std::uint8_t((s[k] + b.count / 2) / b.count);
        palette.push_back(c);
    }
    // Each occupied bin takes the palette colour nearest its own mean, which beats the box's
    // mean at box edges and keeps colours exact when every bin holds one colour.
    lut.assign(kBins, 0);
    for (int bin = 0; bin < kBins; ++bin) {
        if (!h.count[bin]) continue;
        const Rgb m = h.mean(bin);
        int best = 0, bestD = 1 << 30;
        for (std::size_t i = 0; i < palette.size(); ++i) {
            int d = 0;
            for (int k = 0; k < 3; ++k) d += (m[k] - palette[i][k]) * (m[k] - palette[i][k]);
            if (d < bestD) best = int(i), bestD = d;
        }
        lut[bin] = std::uint8_t(best);
    }
    return palette;
}

class BitWriter {
public:
    void put(int code, int bits) {
        m_buffer |= std::uint32_t(code) << m_count;
        m_count += bits;
        while (m_count >= 8) {
            m_bytes.push_back(char(m_buffer & 0xff));
            m_buffer >>= 8;
            m_count -= 8;
        }
    }
    std::string finish() {
        if (m_count > 0) m_bytes.push_back(char(m_buffer & 0xff));
        return std::move(m_bytes);
    }

private:
    std::uint32_t m_buffer = 0;
    int m_count = 0;
    std::string m_bytes;
};

// GIF LZW (no early change): the code width grows when the last code added needs more bits;
// when code 4095 has been added the table is full and a clear code restarts it.
std::string lzwEncode(const std::vector<std::uint8_t>& indices, int minCodeSize) {
    const int clear = 1 << minCodeSize, end = clear + 1;
    constexpr int kSlots = 1 << 14, kMask = kSlots - 1;  // open addressing, load <= 1/4
    std::vector<std::int32_t> keys(kSlots), values(kSlots);
    int next = 0, width = 0;
    const auto reset = [&] {
        std::fill(keys.begin(), keys.end(), -1);
        next = clear + 2;
        width = minCodeSize + 1;
    };
    BitWriter out;
    reset();
    out.put(clear, width);
    int prefix = indices[0];
    for (std::size_t i = 1; i < indices.size(); ++i) {
        const int k = indices[i];
        const std::int32_t key = (prefix << 8) | k;
        std::uint32_t slot = (std::uint32_t(key) * 2654435761u) >> 18 & kMask;
        while (keys[slot] != -1 && keys[slot] != key) slot = (slot + 1) & kMask;
        if (keys[slot] == key) {
            prefix = values[slot];
            continue;
        }
        out.put(prefix, width);
        keys[slot] = key;
        values[slot] = next;
        if (next == (1 << width) && width < 12) ++width;
        if (++next == kMaxCodes) {
            out.put(clear, width);
            reset();
        }
        prefix = k;
    }
    out.put(prefix, width);
    out.put(end, width);
    return out.finish();
}

void putU16(std::string& s, int v) {
    s.push_back(char(v & 0xff));
    s.push_back(char((v >> 8) & 0xff));
}

void putSubBlocks(std::string& s, const std::string& data) {
    for (std::size_t at = 0; at < data.size(); at += 255) {
        const std::size_t n = std::min<std::size_t>(255, data.size() - at);
        s.push_back(char(n));
        s.append(data, at, n);
    }
    s.push_back('\0');
}

}  // namespace

Result<std::string> encodeGif(const std::vector<Image>& frames, int delayCentiseconds, bool loop) {
    if (frames.empty()) return Error{"cannot write a GIF without frames"};
    const Image& first = frames.front();
    if (first.width <= 0 || first.height <= 0 || first.width > 65535 || first.height > 65535)
        return Error{"GIF frame size " + std::to_string(first.width) + "x" +
                     std::to_string(first.height) + " is outside 1 .. 65535"};
    if (delayCentiseconds < 0 || delayCentiseconds > 65535)
        return Error{"GIF frame delay " + std::to_string(delayCentiseconds) +
                     " cs is outside 0 .. 65535"};
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const Image& f = frames[i];
        const std::string which = "GIF frame " + std::to_string(i + 1);
        if (f.channels != 1 && f.channels != 3)
            return Error{which + " has " + std::to_string(f.channels) + " channels, not 1 or 3"};
        if (f.width != first.width || f.height != first.height || f.channels != first.channels)
            return Error{which + " is " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                         "x" + std::to_string(f.channels) + ", unlike frame 1 (" +
                         std::to_string(first.width) + "x" + std::to_string(first.height) + "x" +
                         std::to_string(first.channels) + ")"};
        if (f.pixels.size() != std::size_t(f.width) * f.height * f.channels)
            return Error{which + " holds " + std::to_string(f.pixels.size()) +
                         " bytes, not width x height x channels"};
    }

    const std::size_t n = std::size_t(first.width) * first.height;
    Histogram hist;
    for (const Image& f : frames) {
        for (std::size_t i = 0; i < n; ++i) {
            const Rgb c = pixelAt(f, i);
            const int bin = binOf(c[0], c[1], c[2]);
            ++hist.count[bin];
            for (int k = 0; k < 3; ++k) hist.sum[bin][k] += c[k];
        }
    }
    std::vector<std::uint8_t> lut;
    const std::vector<Rgb> palette = medianCut(hist, lut);
    int tableBits = 2;  // the table holds 2^tableBits colours; GIF's minimum code size is 2
    while ((1u << tableBits) < palette.size()) ++tableBits;

    std::string gif = "GIF89a";
    putU16(gif, first.width);
    putU16(gif, first.height);
    gif.push_back(char(0x80 | 0x70 | (tableBits - 1)));  // global table, 8-bit colour resolution
    gif.push_back('\0');                                 // background colour index
    gif.push_back('\0');                                 // square pixels
    for (int i = 0; i < (1 << tableBits); ++i) {
        const Rgb c = std::size_t(i) < palette.size() ? palette[i] : Rgb{0, 0, 0};
        gif.append({char(c[0]), char(c[1]), char(c[2])});
    }
    if (loop) {
        gif.append("\x21\xff\x0bNETSCAPE2.0\x03\x01", 16);
        putU16(gif, 0);  // 0: repeat forever
        gif.push_back('\0');
    }
    std::vector<std::uint8_t> indices(n);
    for (const Image& f : frames) {
        gif.append("\x21\xf9\x04\x04", 4);  // graphic control: leave the frame in place
        putU16(gif, delayCentiseconds);
        gif.append("\0\0", 2);  // no transparent colour; block terminator
        gif.push_back('\x2c');
        putU16(gif, 0);
        putU16(gif, 0);
        putU16(gif, first.width);
        putU16(gif, first.height);
        gif.push_back('\0');  // no local table, not interlaced
        for (std::size_t i = 0; i < n; ++i) {
            const Rgb c = pixelAt(f, i);
            indices[i] = lut[binOf(c[0], c[1], c[2])];
        }
        gif.push_back(char(tableBits));  // LZW minimum code size
        putSubBlocks(gif, lzwEncode(indices, tableBits));
    }
    gif.push_back('\x3b');
    return gif;
}

Result<Unit> writeGif(const std::vector<Image>& frames, int delayCentiseconds,
                      const std::string& path, bool loop) {
    auto bytes = encodeGif(frames, delayCentiseconds, loop);
    if (!bytes) return Error{bytes.error()};
    auto written = writeFileAtomic(path, *bytes);
    if (!written) return Error{"cannot write GIF '" + path + "': " + written.error()};
    return Unit{};
}

}  // namespace saccade
