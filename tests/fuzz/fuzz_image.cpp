// Fuzz target: decoding user images (PNG, JPEG, BMP, TIFF) from memory, with the size check that
// runs before OpenCV. maxPixels is kept small so that a header may not ask for gigabytes.

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/image_io.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace saccade;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    ImageLoadOptions options;
    options.maxPixels = 1 << 20;
    // The channel conversion follows the input's length, so that all three paths are exercised
    // without changing the bytes the decoders see.
    constexpr int kChannels[] = {0, 1, 3};
    options.channels = kChannels[size % 3];
    fuzz::guarded("image", [&] {
        const auto image = decodeImage(bytes, "fuzz input", options);
        if (!image) {
            fuzz::note("image", image.error());
            SACCADE_FUZZ_CHECK(!image.error().empty(), "an error without a message");
            return;
        }
        SACCADE_FUZZ_CHECK(image->width > 0 && image->height > 0, "size %d x %d", image->width,
                           image->height);
        SACCADE_FUZZ_CHECK(static_cast<std::int64_t>(image->width) * image->height <= options.maxPixels,
                           "%d x %d decoded, over maxPixels", image->width, image->height);
        SACCADE_FUZZ_CHECK(image->channels == 1 || image->channels == 3, "%d channels",
                           image->channels);
        SACCADE_FUZZ_CHECK(options.channels == 0 || image->channels == options.channels,
                           "%d channels, %d asked", image->channels, options.channels);
        SACCADE_FUZZ_CHECK(image->pixels.size() == static_cast<std::size_t>(image->width) *
                                                       image->height * image->channels,
                           "%zu pixel bytes for %d x %d x %d", image->pixels.size(), image->width,
                           image->height, image->channels);
        fuzz::note("image", "decoded " + std::to_string(image->width) + " x " +
                                std::to_string(image->height) + " x " + std::to_string(image->channels));
    });
    return 0;
}
