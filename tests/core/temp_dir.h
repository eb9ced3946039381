#pragma once
// A temporary folder for one test, removed with everything in it when the test ends.

#include <unistd.h>

#include <filesystem>
#include <string>

namespace saccade::test {

struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& prefix = "saccade-test")
        : path(std::filesystem::temp_directory_path() /
               (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(next()++))) {
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }

private:
    static int& next() {
        static int n = 0;
        return n;
    }
};

}  // namespace saccade::test
