#include "common/torch_errors.h"

#include <regex>

#include <c10/util/Exception.h>

#include "common/display_text.h"
#include "common/result.h"

namespace saccade {

namespace {

std::string messageOf(const std::exception& e) {
    const auto* c10 = dynamic_cast<const c10::Error*>(&e);
    return c10 ? c10->what_without_backtrace() : e.what();
}

}  // namespace

bool isOutOfMemory(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
    const std::string text = messageOf(e);
    return text.find("DefaultCPUAllocator: can't allocate memory") != std::string::npos ||
           text.find("DefaultCPUAllocator: not enough memory") != std::string::npos ||
           text.find("CUDA out of memory") != std::string::npos;
}

std::string torchErrorLine(const std::exception& e) {
    const std::string text = messageOf(e);
    if (isOutOfMemory(e)) {
        static const std::regex kBytes("allocate ([0-9]+) bytes");
        std::smatch m;
        if (std::regex_search(text, m, kBytes))
            return "out of memory: " + std::to_string(std::stoll(m[1].str()) >> 20) + " MB could not be allocated";
        return "out of memory";
    }
    return escapeDisplayText(firstLine(text), 500);
}

}  // namespace saccade
