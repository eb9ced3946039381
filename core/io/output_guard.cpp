#include "io/output_guard.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "io/checkpoint.h"

namespace saccade {

Result<std::vector<NamedPath>> checkpointOutputs(const std::string& path, const std::string& role) {
    const std::filesystem::path p(path);
    if (p.extension() != ".pt")
        return Error{role + " '" + path + "' must end in .pt: the sidecar (.json) and the metrics are named after it"};
    if (p.stem().extension() == ".metrics")
        return Error{role + " '" + path + "' ends in .metrics.pt: its sidecar would be the metrics of '" +
                     p.stem().replace_extension(".pt").string() + "'"};
    std::vector<NamedPath> out{{path, role}};
    const char* what[] = {"sidecar", "metrics (CSV)", "metrics (JSON)"};
    auto companions = checkpointCompanions(path);
    for (std::size_t i = 0; i < companions.size(); ++i)
        out.push_back({companions[i], std::string("the ") + what[i] + " of " + role});
    return out;
}

std::vector<NamedPath> inputWithCompanions(const std::string& path, const std::string& role) {
    std::vector<NamedPath> in{{path, role}};
    const char* what[] = {"sidecar", "metrics", "metrics"};
    auto companions = checkpointCompanions(path);
    for (std::size_t i = 0; i < companions.size(); ++i) {
        std::error_code ec;
        if (companions[i] != path && std::filesystem::exists(companions[i], ec))
            in.push_back({companions[i], std::string("the ") + what[i] + " of " + role});
    }
    return in;
}

namespace {
std::string canonicalOf(const std::string& path) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
    return ec ? std::filesystem::absolute(path).lexically_normal().string() : c.string();
}
}  // namespace

bool samePlace(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return canonicalOf(a) == canonicalOf(b);
}

Result<Unit> checkOutputsApart(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const auto& o = outputs[i];
        for (const auto& in : inputs)
            if (samePlace(o.path, in.path))
                return Error{o.role + " '" + o.path + "' is " + in.role + " ('" + in.path +
                             "'): writing it would destroy what is read; choose another name"};
        for (std::size_t j = 0; j < i; ++j)
            if (samePlace(o.path, outputs[j].path))
                return Error{o.role + " '" + o.path + "' is also " + outputs[j].role + " ('" + outputs[j].path +
                             "'); choose another name"};
    }
    return Unit{};
}

}  // namespace saccade
