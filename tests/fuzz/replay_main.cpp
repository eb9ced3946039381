// A main for the fuzz targets without libFuzzer (GCC builds, ctest): runs every file given, or in
// a folder given, then, when a folder was given, deterministic mutations of those files (byte
// flips, interesting values, truncations, insertions, erasures, splices) until -runs inputs or
// -max_total_time seconds. Takes libFuzzer's spelling of its flags, so that
//   fuzz_idx -runs=3000 -max_total_time=10 -seed=1 tests/fuzz/corpus/idx
// replays a corpus and `fuzz_idx crash-file` reproduces one input with either build.
// On a crash (a signal, or an abort from an escaped exception or a broken invariant) the input
// is written to ./replay-crash-<target> before the process dies as it would have.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

const Bytes* g_current = nullptr;
char g_crashPath[4096] = "replay-crash";

// Async-signal-safe: saves the input being run, then lets the signal kill the process.
void onFatalSignal(int sig) {
    if (g_current) {
        const int fd = open(g_crashPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            const std::uint8_t* p = g_current->data();
            std::size_t left = g_current->size();
            while (left > 0) {
                const ssize_t n = write(fd, p, left);
                if (n <= 0) break;
                p += n;
                left -= static_cast<std::size_t>(n);
            }
            close(fd);
            static const char kNote[] = "replay: the failing input is saved in ";
            (void)!write(STDERR_FILENO, kNote, sizeof kNote - 1);
            (void)!write(STDERR_FILENO, g_crashPath, std::strlen(g_crashPath));
            (void)!write(STDERR_FILENO, "\n", 1);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

// splitmix64: small, seeded, the same sequence on every machine.
struct Rng {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

// Values that make parsers and size fields go wrong more often than random bytes do.
constexpr std::uint32_t kInteresting[] = {0,          1,          0x7f,       0x80,      0xff,
                                          0x100,      0x7fff,     0x8000,     0xffff,    0x10000,
                                          0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe};

Bytes mutate(const Bytes& in, const std::vector<Bytes>& corpus, std::size_t maxSize, Rng& rng) {
    Bytes b = in;
    const int edits = 1 + static_cast<int>(rng.below(4));
    for (int e = 0; e < edits; ++e) {
        switch (rng.below(8)) {
            case 0:  // flip one bit
                if (!b.empty()) b[rng.below(b.size())] ^= std::uint8_t(1u << rng.below(8));
                break;
            case 1:  // a random byte
                if (!b.empty()) b[rng.below(b.size())] = std::uint8_t(rng.next());
                break;
            case 2: {  // an interesting value, 1, 2 or 4 bytes, either byte order
                if (b.empty()) break;
                const std::uint32_t v = kInteresting[rng.below(std::size(kInteresting))];
                const std::size_t width = std::size_t(1) << rng.below(3);
                const std::size_t at = rng.below(b.size());
                const bool big = rng.below(2) == 0;
                for (std::size_t i = 0; i < width && at + i < b.size(); ++i) {
                    const std::size_t shift = 8 * (big ? width - 1 - i : i);
                    b[at + i] = std::uint8_t(v >> shift);
                }
                break;
            }
            case 3:  // truncate
                b.resize(rng.below(b.size() + 1));
                break;
            case 4: {  // insert random bytes
                const std::size_t at = rng.below(b.size() + 1);
                Bytes ins(1 + rng.below(16));
                for (auto& x : ins) x = std::uint8_t(rng.next());
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(), ins.end());
                break;
            }
            case 5: {  // erase a range
                if (b.empty()) break;
                const std::size_t at = rng.below(b.size());
                const std::size_t n = 1 + rng.below(std::min<std::size_t>(64, b.size() - at));
                b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                        b.begin() + static_cast<std::ptrdiff_t>(at + n));
                break;
            }
            case 6: {  // duplicate a range in place
                if (b.empty()) break;
                const std::size_t at = rng.below(b.size());
                const std::size_t n = 1 + rng.below(std::min<std::size_t>(64, b.size() - at));
                const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(at),
                                  b.begin() + static_cast<std::ptrdiff_t>(at + n));
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)), chunk.begin(),
                         chunk.end());
                break;
            }
            default: {  // splice: our head, another corpus file's tail
                const Bytes& other = corpus[rng.below(corpus.size())];
                const std::size_t head = rng.below(b.size() + 1);
                const std::size_t from = rng.below(other.size() + 1);
                b.resize(head);
                b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
                break;
            }
        }
    }
    if (b.size() > maxSize) b.resize(maxSize);
    return b;
}

bool readFile(const std::string& path, Bytes& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return !in.bad();
}

void run(const Bytes& input) {
    g_current = &input;
    LLVMFuzzerTestOneInput(input.data(), input.size());
    g_current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    long long runs = 3000;
    double maxSeconds = 10;
    std::uint64_t seed = 1;
    std::vector<std::string> files;
    bool sawFolder = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("-runs=", 0) == 0) {
            runs = std::atoll(arg.c_str() + 6);
        } else if (arg.rfind("-max_total_time=", 0) == 0) {
            maxSeconds = std::atof(arg.c_str() + 16);
        } else if (arg.rfind("-seed=", 0) == 0) {
            seed = std::strtoull(arg.c_str() + 6, nullptr, 10);
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "replay: ignoring libFuzzer flag %s\n", arg.c_str());
        } else if (std::filesystem::is_directory(arg)) {
            sawFolder = true;
            std::vector<std::string> inFolder;
            for (const auto& entry : std::filesystem::directory_iterator(arg))
                if (entry.is_regular_file()) inFolder.push_back(entry.path().string());
            std::sort(inFolder.begin(), inFolder.end());  // the same order everywhere
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else {
            files.push_back(arg);
        }
    }
    if (files.empty()) {
        std::fprintf(stderr,
                     "usage: %s [-runs=N] [-max_total_time=SECONDS] [-seed=N] CORPUS_DIR|FILE...\n",
                     argv[0]);
        return 2;
    }

    const std::string name = std::filesystem::path(argv[0]).filename().string();
    std::snprintf(g_crashPath, sizeof g_crashPath, "replay-crash-%s", name.c_str());
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) signal(sig, onFatalSignal);

    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::vector<Bytes> corpus;
    std::size_t largest = 0;
    for (const auto& path : files) {
        Bytes bytes;
        if (!readFile(path, bytes)) {
            std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
            return 2;
        }
        run(bytes);
        largest = std::max(largest, bytes.size());
        corpus.push_back(std::move(bytes));
    }
    long long mutations = 0;
    if (sawFolder) {
        Rng rng{seed};
        const std::size_t maxSize = std::max<std::size_t>(4096, largest + largest / 4);
        for (; mutations + static_cast<long long>(corpus.size()) < runs && elapsed() < maxSeconds;
             ++mutations) {
            const Bytes input = mutate(corpus[rng.below(corpus.size())], corpus, maxSize, rng);
            run(input);
        }
    }
    std::printf("%s: %zu corpus files and %lld mutations (seed %llu) in %.1f s, no crash\n", name.c_str(),
                corpus.size(), mutations, static_cast<unsigned long long>(seed), elapsed());
    return 0;
}
