#pragma once
// Helpers shared by the fuzz targets: a private scratch folder for readers that take a path, and
// a guard that turns an escaped exception into a clear report and an abort (a finding).

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

namespace saccade::fuzz {

/// One scratch folder per process (libFuzzer's -fork and -jobs use processes), in /dev/shm when
/// it is writable so that the readers' file I/O stays in memory. Removed at a normal exit; a
/// crashed run leaves it behind (named saccade-fuzz-*).
inline const std::string& scratchDir() {
    struct Dir {
        std::string path;
        Dir() {
            std::string base = "/dev/shm";
            if (access(base.c_str(), W_OK) != 0) {
                const char* tmp = std::getenv("TMPDIR");
                base = tmp && *tmp ? tmp : "/tmp";
            }
            std::string pattern = base + "/saccade-fuzz-XXXXXX";
            if (!mkdtemp(pattern.data())) {
                std::perror("fuzz: cannot create a scratch folder");
                std::abort();
            }
            path = pattern;
        }
        ~Dir() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

/// Writes `size` bytes to `path`, replacing it; aborts when the scratch folder is unusable
/// (that is the harness failing, not the code under test).
inline void writeBytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
        std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
        std::abort();
    }
}

/// SACCADE_FUZZ_VERBOSE=1 prints each input's outcome (to check that seeds parse, or what a
/// finding's input does); off by default, since libFuzzer runs millions of inputs.
inline void note(const char* target, const std::string& outcome) {
    static const bool verbose = [] {
        const char* v = std::getenv("SACCADE_FUZZ_VERBOSE");
        return v && *v && std::string(v) != "0";
    }();
    if (verbose) std::fprintf(stderr, "fuzz_%s: %s\n", target, outcome.c_str());
}

/// Runs `body`; an exception escaping the code under test is a finding: it is printed and the
/// process aborts, so that libFuzzer (or the replay driver) saves the input.
template <typename Body>
void guarded(const char* target, Body&& body) {
    try {
        body();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_%s: exception escaped: %s\n", target, e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "fuzz_%s: a non-std exception escaped\n", target);
        std::abort();
    }
}

/// A broken invariant of a successful parse: printed, then abort.
#define SACCADE_FUZZ_CHECK(cond, ...)                                                         \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__, __LINE__, \
                         #cond);                                                              \
            std::fprintf(stderr, __VA_ARGS__);                                                \
            std::fprintf(stderr, "\n");                                                       \
            std::abort();                                                                     \
        }                                                                                     \
    } while (0)

}  // namespace saccade::fuzz
