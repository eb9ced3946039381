// Fuzz target: reading a trace (JSON, schema "saccade.trace"). A trace that parses must pass
// validateTrace, and write out and read back to the same JSON.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "trace/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace saccade;
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::guarded("trace", [&] {
        const auto trace = traceFromJson(text);
        if (!trace) {
            fuzz::note("trace", trace.error());
            SACCADE_FUZZ_CHECK(!trace.error().empty(), "an error without a message");
            return;
        }
        fuzz::note("trace", "a trace of " + std::to_string(trace->steps.size()) + " steps");
        const auto valid = validateTrace(*trace);
        SACCADE_FUZZ_CHECK(valid.ok(), "a parsed trace fails validation: %s", valid.error().c_str());
        const std::string json = traceToJson(*trace);
        const auto again = traceFromJson(json);
        SACCADE_FUZZ_CHECK(again.ok(), "a written trace does not read back: %s", again.error().c_str());
        SACCADE_FUZZ_CHECK(traceToJson(*again) == json, "a trace changes when written and read back");
        (void)traceToCsv(*trace);
    });
    return 0;
}
