#include "io/zip_check.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <zlib.h>

namespace saccade {

namespace {

constexpr std::uint32_t kEndOfDirectory = 0x06054b50;
constexpr std::uint32_t kZip64EndLocator = 0x07064b50;
constexpr std::uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kLocalHeader = 0x04034b50;

struct Reader {
    const std::string& bytes;
    bool inside(std::uint64_t at, std::uint64_t n) const { return at <= bytes.size() && n <= bytes.size() - at; }
    std::uint64_t le(std::uint64_t at, int n) const {
        std::uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
        return v;
    }
};

std::uint32_t crcOf(const char* data, std::uint64_t n) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        const uInt chunk = static_cast<uInt>(std::min<std::uint64_t>(n, 1u << 30));
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
        data += chunk;
        n -= chunk;
    }
    return static_cast<std::uint32_t>(crc);
}

// Raw deflate -> CRC of the inflated bytes; false when the stream is damaged or its size differs.
bool inflatedCrc(const char* data, std::uint64_t n, std::uint64_t expectedSize, std::uint32_t& crcOut) {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return false;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(std::min<std::uint64_t>(n, UINT32_MAX));
    std::vector<unsigned char> out(1 << 16);
    uLong crc = crc32(0L, Z_NULL, 0);
    std::uint64_t total = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&z, Z_NO_FLUSH);
        const auto produced = out.size() - z.avail_out;
        crc = crc32(crc, out.data(), static_cast<uInt>(produced));
        total += produced;
        if (rc == Z_OK && produced == 0 && z.avail_in == 0) break;
    }
    inflateEnd(&z);
    crcOut = static_cast<std::uint32_t>(crc);
    return rc == Z_STREAM_END && total == expectedSize;
}

}  // namespace

Result<Unit> verifyZipArchive(const std::string& bytes, const std::string& what) {
    const Reader r{bytes};
    const auto fail = [&what](const std::string& why) { return Error{what + " is damaged: " + why}; };
    if (bytes.size() < 22) return Error{what + " is too short to be an archive (" + std::to_string(bytes.size()) + " bytes)"};
    // The end-of-central-directory record sits in the last 22 + 65535 bytes (its comment follows it).
    std::uint64_t eocd = UINT64_MAX;
    const std::uint64_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
    for (std::uint64_t at = bytes.size() - 22 + 1; at-- > lowest;) {
        if (r.le(at, 4) == kEndOfDirectory && at + 22 + r.le(at + 20, 2) == bytes.size()) {
            eocd = at;
            break;
        }
    }
    if (eocd == UINT64_MAX) {
        const bool zip = bytes.compare(0, 4, "PK\x03\x04") == 0;
        return zip ? fail("the end of the archive is missing (truncated file)")
                   : Error{what + " is not a zip archive (a LibTorch checkpoint is one)"};
    }
    std::uint64_t entries = r.le(eocd + 10, 2);
    std::uint64_t directorySize = r.le(eocd + 12, 4);
    std::uint64_t directoryAt = r.le(eocd + 16, 4);
    if (entries == 0xFFFF || directorySize == 0xFFFFFFFF || directoryAt == 0xFFFFFFFF) {
        if (eocd < 20 || r.le(eocd - 20, 4) != kZip64EndLocator) return fail("the zip64 locator is missing");
        const std::uint64_t at64 = r.le(eocd - 20 + 8, 8);
        if (!r.inside(at64, 56) || r.le(at64, 4) != kZip64EndOfDirectory) return fail("the zip64 directory end is missing");
        entries = r.le(at64 + 32, 8);
        directorySize = r.le(at64 + 40, 8);
        directoryAt = r.le(at64 + 48, 8);
    }
    if (!r.inside(directoryAt, directorySize)) return fail("the central directory lies outside the file (truncated file)");
    if (entries == 0) return fail("the archive is empty");

    std::uint64_t at = directoryAt;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (!r.inside(at, 46) || r.le(at, 4) != kCentralHeader) return fail("central directory entry " + std::to_string(e) + " is broken");
        const auto method = r.le(at + 10, 2);
        const auto crc = static_cast<std::uint32_t>(r.le(at + 16, 4));
        std::uint64_t packed = r.le(at + 20, 4), size = r.le(at + 24, 4);
        const auto nameLength = r.le(at + 28, 2), extraLength = r.le(at + 30, 2), commentLength = r.le(at + 32, 2);
        std::uint64_t local = r.le(at + 42, 4);
        if (!r.inside(at + 46, nameLength + extraLength + commentLength)) return fail("the central directory is cut short");
        const std::string name = bytes.substr(at + 46, nameLength);
        // zip64 extra field: the 64-bit values of the fields that read 0xFFFFFFFF, in this order.
        for (std::uint64_t x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength;) {
            const auto id = r.le(x, 2), length = r.le(x + 2, 2);
            if (id == 0x0001) {
                std::uint64_t y = x + 4;
                const std::uint64_t end = y + length;
                auto take = [&](std::uint64_t& v) {
                    if (v == 0xFFFFFFFF && y + 8 <= end) v = r.le(y, 8), y += 8;
                };
                take(size);
                take(packed);
                take(local);
            }
            x += 4 + length;
        }
        if (!r.inside(local, 30) || r.le(local, 4) != kLocalHeader) return fail("entry '" + name + "' has no local header");
        // Names are not covered by the CRC: the local header must repeat the directory's.
        const auto localNameLength = r.le(local + 26, 2);
        if (localNameLength != nameLength || !r.inside(local + 30, localNameLength) ||
            bytes.compare(local + 30, localNameLength, name) != 0)
            return fail("entry '" + name + "' is named differently in its local header");
        const std::uint64_t data = local + 30 + localNameLength + r.le(local + 28, 2);
        if (!r.inside(data, packed)) return fail("entry '" + name + "' runs past the end of the file (truncated file)");
        if (method == 0) {
            if (packed != size) return fail("entry '" + name + "' has inconsistent sizes");
            if (crcOf(bytes.data() + data, packed) != crc) return fail("entry '" + name + "' fails its CRC-32 check");
        } else if (method == 8) {
            std::uint32_t got = 0;
            if (!inflatedCrc(bytes.data() + data, packed, size, got) || got != crc)
                return fail("entry '" + name + "' fails its CRC-32 check");
        } else {
            return fail("entry '" + name + "' uses compression method " + std::to_string(method) + ", which is not read");
        }
        at += 46 + nameLength + extraLength + commentLength;
    }
    return Unit{};
}

}  // namespace saccade
