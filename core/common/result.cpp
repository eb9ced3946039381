#include "common/result.h"

namespace saccade {

namespace {
/// Drops a leading "[...] " tag when it starts with `tag`.
std::string withoutTag(std::string line, const std::string& tag) {
    if (line.rfind(tag, 0) != 0) return line;
    const auto close = line.find("] ");
    return close == std::string::npos ? line : line.substr(close + 2);
}
}  // namespace

std::string firstLine(const std::string& text) {
    // The first line that says something: LibTorch starts some messages with a newline.
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) return {};
    const auto end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    line = withoutTag(withoutTag(line, "[json.exception."), "[enforce fail at ");
    if (const auto appeal = line.find("(Could this error message be improved?"); appeal != std::string::npos)
        line = line.substr(0, appeal);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.find("hasRecord(\"version\")") != std::string::npos)
        return "the zip archive has no 'version' record: it was not written by torch.save or torch.jit.save";
    return line;
}

}  // namespace saccade
