#include "data/idx_reader.h"

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <memory>

#include <zlib.h>

namespace saccade {

namespace {

struct GzCloser {
    void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly n bytes; returns how many were read, or -1 on a stream error.
long long readExactly(gzFile f, std::uint8_t* out, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
        const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
        const int got = gzread(f, out + done, chunk);
        if (got < 0) return -1;
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return static_cast<long long>(done);
}

std::string gzError(gzFile f) {
    int code = 0;
    const char* msg = gzerror(f, &code);
    return msg && *msg ? msg : "read error";
}

}  // namespace

Result<IdxArray> readIdxFile(const std::string& path, int expectedRank) {
    const std::string name = "'" + path + "'";
    GzFile file(gzopen(path.c_str(), "rb"));  // reads plain files too
    if (!file) return Error{"cannot open " + name + ": " + std::strerror(errno)};

    std::uint8_t header[4];
    const auto got = readExactly(file.get(), header, 4);
    if (got < 0) return Error{name + " is corrupt: not a valid gzip stream (" + gzError(file.get()) + ")"};
    if (got < 4) return Error{name + " is truncated: no IDX header"};
    if (header[0] != 0 || header[1] != 0 || header[2] != 0x08) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%02x %02x %02x %02x", header[0], header[1], header[2],
                      header[3]);
        return Error{name + " is not an unsigned-byte IDX file (magic bytes " + buf +
                     ", expected 00 00 08 0" + std::to_string(expectedRank) + ")"};
    }
    if (header[3] != expectedRank) {
        return Error{name + " has " + std::to_string(header[3]) + " dimensions, expected " +
                     std::to_string(expectedRank)};
    }
    IdxArray array;
    std::uint64_t total = 1;
    for (int d = 0; d < expectedRank; ++d) {
        std::uint8_t b[4];
        if (readExactly(file.get(), b, 4) != 4) return Error{name + " is truncated in its header"};
        const std::uint32_t n = (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) |
                                (std::uint32_t(b[2]) << 8) | b[3];
        if (n == 0 || n > (1u << 31))
            return Error{name + ": dimension " + std::to_string(d + 1) + " is " + std::to_string(n)};
        array.dims.push_back(static_cast<int>(n));
        total *= n;
        if (total > (1ull << 31)) return Error{name + ": dimensions describe over 2 GiB of data"};
    }
    // Grow with the data actually read: a header that claims 2 GiB costs nothing until the bytes
    // are there (a short file is named truncated without allocating what it claims).
    long long body = 0;
    constexpr std::uint64_t kChunk = 1u << 20;
    while (static_cast<std::uint64_t>(body) < total) {
        const std::uint64_t want = std::min<std::uint64_t>(kChunk, total - static_cast<std::uint64_t>(body));
        array.data.resize(static_cast<std::size_t>(body + want));
        const auto got = readExactly(file.get(), array.data.data() + body, static_cast<std::size_t>(want));
        if (got < 0) return Error{name + " is corrupt: " + gzError(file.get())};
        body += got;
        if (static_cast<std::uint64_t>(got) < want) break;
    }
    array.data.resize(static_cast<std::size_t>(body));
    if (static_cast<std::uint64_t>(body) < total) {
        return Error{name + " is truncated: " + std::to_string(body) + " of " +
                     std::to_string(total) + " data bytes"};
    }
    std::uint8_t extra;
    const auto more = readExactly(file.get(), &extra, 1);
    if (more < 0) return Error{name + " is corrupt: " + gzError(file.get())};
    if (more > 0) return Error{name + " has trailing bytes after its " + std::to_string(total) + " data bytes"};
    return array;
}

}  // namespace saccade
