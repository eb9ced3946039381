// Fuzz target: loading a checkpoint (model.pt, a zip archive, plus its model.json sidecar).
// Input layout: 4 bytes little-endian = the sidecar's length L, then L sidecar bytes, then the
// .pt bytes (L is clipped to what is there). Both go to a scratch folder, then
// loadAttentionModel(path, "cpu") reads them as a user's checkpoint.

#include <cstddef>
#include <cstdint>
#include <string>

#include <ATen/Parallel.h>

#include "fuzz_support.h"
#include "models/attention_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace saccade;
    static const bool once = [] {
        at::set_num_threads(1);
        return true;
    }();
    (void)once;
    if (size < 4) return 0;
    std::size_t sidecarBytes = std::size_t(data[0]) | (std::size_t(data[1]) << 8) |
                               (std::size_t(data[2]) << 16) | (std::size_t(data[3]) << 24);
    if (sidecarBytes > size - 4) sidecarBytes = size - 4;
    static const std::string dir = fuzz::scratchDir();
    static const std::string weights = dir + "/model.pt";
    fuzz::writeBytes(dir + "/model.json", data + 4, sidecarBytes);
    fuzz::writeBytes(weights, data + 4 + sidecarBytes, size - 4 - sidecarBytes);
    fuzz::guarded("checkpoint", [&] {
        const auto model = loadAttentionModel(weights, "cpu");
        if (!model) {
            fuzz::note("checkpoint", model.error());
            SACCADE_FUZZ_CHECK(!model.error().empty(), "an error without a message");
            return;
        }
        const AttentionModel& m = **model;
        const std::string type = m.info().modelType;
        fuzz::note("checkpoint", "loaded a " + type + " model");
        SACCADE_FUZZ_CHECK(type == "patch" || type == "ram" || type == "caption", "model type '%s'",
                           type.c_str());
        SACCADE_FUZZ_CHECK(m.imageSize() > 0 && m.channels() > 0 && m.steps() > 0,
                           "image %d, channels %d, steps %d", m.imageSize(), m.channels(), m.steps());
    });
    return 0;
}
