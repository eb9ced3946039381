#include "common/samples_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace saccade {

namespace fs = std::filesystem;

std::string findSamplesDir() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("SACCADE_SAMPLES_DIR"); env != nullptr && env[0] != '\0')
        candidates.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path();
             dir = dir.parent_path()) {
            candidates.push_back(dir / "samples");
            candidates.push_back(dir / "share" / "saccade" / "samples");
        }
    }
#ifdef SACCADE_SOURCE_SAMPLES_DIR
    candidates.emplace_back(SACCADE_SOURCE_SAMPLES_DIR);
#endif
    for (const auto& dir : candidates) {
        if (fs::is_directory(dir / "models", ec)) return dir.lexically_normal().string();
    }
    return {};
}

}  // namespace saccade
