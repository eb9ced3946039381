#pragma once
// What opening and using a model of one's own costs (`saccade-cli bench import`): opening (load
// plus the one checked forward), a warm trace, a switch between maps of one forward (transformers:
// raw attention, a head, rollout), and a dataset's or folder's evaluation per image. Any model
// file opens, a Saccade checkpoint too. Engine header.

#include <string>

#include "common/result.h"
#include "data/image.h"
#include "models/input_overrides.h"

namespace saccade {

struct ImportBenchOptions {
    std::string model, device = "auto";
    InputOverrides input;
    Image image;                 ///< traced; fitted to the model
    std::string dataset;         ///< evaluated ("" = not)
    std::int64_t evalImages = 200;
    int repeats = 5;
};

struct ImportBenchResult {
    std::string device, preprocessing, summary;
    int threads = 1, inputSize = 0, channels = 1;
    double openMs = 0;        ///< median of `repeats` opens
    double firstTraceMs = 0;  ///< the first trace after an open
    double warmTraceMs = 0;   ///< median trace of a new image (two images alternate)
    double switchMs = -1;     ///< median trace of the same image under another rule; < 0: one rule only
    std::string switchRules;  ///< "attention -> rollout"
    double evalMsPerImage = -1;  ///< < 0: no dataset
    double readMsPerImage = -1;  ///< reading one of its images (decoding, resizing, cropping) alone
    std::int64_t evalImages = 0;
};

Result<ImportBenchResult> benchImport(const ImportBenchOptions& options);

}  // namespace saccade
