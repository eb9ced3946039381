#include "run_input.h"

#include <unistd.h>

#include <iostream>

#include "data/dataset.h"
#include "data/image_io.h"
#include "models/caption_model.h"

namespace saccade::cli {

namespace {

// "D:i" -> dataset D, test sample i.
struct SampleRef {
    std::string dataset;
    std::int64_t index = 0;
};
Result<SampleRef> parseSampleRef(const std::string& text) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) return Error{"--sample must be DATASET:INDEX, got '" + text + "'"};
    try {
        return SampleRef{text.substr(0, colon), std::stoll(text.substr(colon + 1))};
    } catch (const std::exception&) {
        return Error{"--sample must be DATASET:INDEX, got '" + text + "'"};
    }
}

}  // namespace

Result<TraceInput> resolveInput(const AttentionModel& model, const std::string& imagePath,
                                const std::string& sampleRef) {
    TraceInput in;
    if (!sampleRef.empty()) {
        auto ref = parseSampleRef(sampleRef);
        if (!ref) return Error{ref.error()};
        auto d = openDataset(ref->dataset, {"", model.info().seed});
        if (!d) return Error{d.error()};
        if (ref->index < 0 || ref->index >= (*d)->size(Split::Test))
            return Error{"sample " + std::to_string(ref->index) + " is outside the test split of " +
                         ref->dataset};
        const auto s = (*d)->sample(Split::Test, ref->index);
        in.image = s.image;
        in.id = ref->dataset + ":test:" + std::to_string(ref->index);
        in.truth = s.captionWords.empty() ? GroundTruth{s.label, {s.box}} : sceneGroundTruth(s);
        return in;
    }
    if (imagePath.empty()) return Error{"give --image FILE or --sample DATASET:INDEX"};
    ImageLoadOptions lo;
    lo.channels = model.channels();
    auto loaded = loadImage(imagePath, lo);
    if (!loaded) return Error{loaded.error()};
    in.image = *loaded;
    in.id = imagePath;
    return in;
}

Result<Unit> applyWordTemperature(AttentionModel& model, double temperature) {
    auto* captioner = dynamic_cast<CaptionModel*>(&model);
    if (!captioner) {
        if (temperature != 0) return Error{"--word-temperature applies to captioners only"};
        return Unit{};
    }
    return captioner->setWordTemperature(temperature);
}

bool parseRange(const std::string& text, int& lo, int& hi) {
    // Whole numbers only: "12abc" is not 12.
    auto whole = [](const std::string& t, int& v) {
        try {
            std::size_t used = 0;
            v = std::stoi(t, &used);
            return used == t.size();
        } catch (const std::exception&) {
            return false;
        }
    };
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
        if (!whole(text, lo)) return false;
        hi = lo;
        return true;
    }
    return whole(text.substr(0, colon), lo) && whole(text.substr(colon + 1), hi) && lo <= hi;
}

Progress consoleProgress(const std::string& what) {
    if (!isatty(STDERR_FILENO)) return {};
    return [what](double f) {
        std::cerr << "\r" << what << " " << int(100 * f) << "%" << (f >= 1 ? "\n" : "") << std::flush;
        return true;
    };
}

}  // namespace saccade::cli
