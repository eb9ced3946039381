#include "io/checkpoint_staging.h"

#include <filesystem>
#include <system_error>
#include <vector>

#include "io/checkpoint.h"

namespace saccade {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> withCompanions(const std::string& path) {
    std::vector<std::string> all{path};
    for (auto& c : checkpointCompanions(path)) all.push_back(std::move(c));
    return all;
}

}  // namespace

std::string stagedCheckpointPath(const std::string& out) {
    const fs::path p(out);
    return (p.parent_path() / ("." + p.stem().string() + ".unsaved.pt")).string();
}

Result<Unit> promoteCheckpoint(const std::string& staged, const std::string& out) {
    const auto from = withCompanions(staged), to = withCompanions(out);
    std::error_code ec;
    if (!fs::exists(from.front(), ec)) return Error{"no staged checkpoint at '" + staged + "'"};
    for (std::size_t i = 0; i < from.size(); ++i) {
        if (fs::exists(from[i], ec)) {
            fs::rename(from[i], to[i], ec);
            if (ec) return Error{"could not move '" + from[i] + "' to '" + to[i] + "': " + ec.message()};
        } else if (fs::exists(to[i], ec)) {
            fs::remove(to[i], ec);  // an older run's metrics would describe other weights
            if (ec) return Error{"could not remove the older '" + to[i] + "': " + ec.message()};
        }
    }
    return Unit{};
}

void discardCheckpoint(const std::string& staged) {
    std::error_code ec;
    for (const auto& path : withCompanions(staged)) fs::remove(path, ec);
}

}  // namespace saccade
