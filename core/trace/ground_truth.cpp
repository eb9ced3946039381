#include "trace/ground_truth.h"

#include "common/words.h"

namespace saccade {

GroundTruth sceneGroundTruth(const Sample& sample) {
    GroundTruth g;
    g.label = -1;
    for (const auto& o : sample.objects) {
        g.boxes.push_back(o.box);
        g.names.push_back(o.name);
    }
    if (sample.references.empty())
        g.references.push_back(joinWords(sample.captionWords));
    else
        for (const auto& r : sample.references) g.references.push_back(joinWords(r));
    return g;
}

GroundTruth sampleGroundTruth(const Sample& sample) {
    return sample.captionWords.empty() ? GroundTruth{sample.label, {sample.box}, {}, {}} : sceneGroundTruth(sample);
}

GroundTruth fittedGroundTruth(const GroundTruth& truth, const FitGeometry& geometry) {
    GroundTruth out = truth;
    out.boxes.clear();
    out.names.clear();
    for (std::size_t i = 0; i < truth.boxes.size(); ++i) {
        const auto box = geometry.map(truth.boxes[i]);
        if (!box) continue;
        out.boxes.push_back(*box);
        if (i < truth.names.size()) out.names.push_back(truth.names[i]);
    }
    return out;
}

}  // namespace saccade
