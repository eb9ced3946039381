// Fuzz target: the IDX reader (Fashion-MNIST files, plain or gzip), through a scratch file since
// readIdxFile takes a path. Every input is read as labels (rank 1) and as images (rank 3).

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/idx_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace saccade;
    static const std::string path = fuzz::scratchDir() + "/input.idx";
    fuzz::writeBytes(path, data, size);
    fuzz::guarded("idx", [&] {
        for (int rank : {1, 3}) {
            const auto array = readIdxFile(path, rank);
            if (!array) {
                fuzz::note("idx", "rank " + std::to_string(rank) + ": " + array.error());
                SACCADE_FUZZ_CHECK(!array.error().empty(), "an error without a message");
                continue;
            }
            fuzz::note("idx", "rank " + std::to_string(rank) + ": " +
                                  std::to_string(array->data.size()) + " data bytes");
            SACCADE_FUZZ_CHECK(static_cast<int>(array->dims.size()) == rank, "rank %zu, expected %d",
                               array->dims.size(), rank);
            std::uint64_t total = 1;
            for (int d : array->dims) {
                SACCADE_FUZZ_CHECK(d > 0, "dimension %d", d);
                total *= static_cast<std::uint64_t>(d);
            }
            SACCADE_FUZZ_CHECK(total == array->data.size(), "%zu data bytes for dims of %llu",
                               array->data.size(), static_cast<unsigned long long>(total));
        }
    });
    return 0;
}
