#include "run_input.h"

#include <unistd.h>

#include <iostream>

#include "data/dataset.h"
#include "common/parse.h"
#include "data/image_io.h"
#include "models/model_input.h"
#include "trace/ground_truth.h"

namespace saccade::cli {

Result<TraceInput> resolveInput(const AttentionModel& model, const std::string& imagePath,
                                const std::string& sampleRef) {
    TraceInput in;
    if (!sampleRef.empty()) {
        auto ref = parseSampleRef(sampleRef);
        if (!ref) return Error{ref.error()};
        auto d = openDatasetFor(model, ref->dataset, model.info().seed);
        if (!d) return Error{d.error()};
        if (ref->index < 0 || ref->index >= (*d)->size(Split::Test))
            return Error{"sample " + std::to_string(ref->index) + " is outside the test split of " +
                         ref->dataset};
        const auto s = (*d)->sample(Split::Test, ref->index);
        in.image = s.image;
        in.id = ref->dataset + ":test:" + std::to_string(ref->index);
        in.truth = sampleGroundTruth(s);
        return in;
    }
    if (imagePath.empty()) return Error{"give --image FILE or --sample DATASET:INDEX"};
    ImageLoadOptions lo;
    lo.channels = model.channels();
    auto loaded = loadImage(imagePath, lo);
    if (!loaded) return Error{loaded.error()};
    auto fitted = fitToModel(model, *loaded);
    if (!fitted) return Error{"'" + imagePath + "': " + fitted.error()};
    in.image = std::move(fitted->image);
    in.id = imagePath;
    return in;
}

Result<Unit> applyWordTemperature(AttentionModel& model, double temperature) {
    return model.setWordTemperature(temperature);
}

Progress consoleProgress(const std::string& what) {
    if (!isatty(STDERR_FILENO)) return {};
    return [what](double f) {
        std::cerr << "\r" << what << " " << int(100 * f) << "%" << (f >= 1 ? "\n" : "") << std::flush;
        return true;
    };
}

}  // namespace saccade::cli
