#include "analysis/attribution/map_comparison.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "analysis/attribution/deletion_curves.h"
#include "analysis/attribution/faithfulness.h"
#include "metrics/attention_regions.h"
#include "models/gradient_forward.h"

namespace saccade {

namespace {

// Sums over the images of one map's figures.
struct MapSums {
    std::int64_t images = 0, boxed = 0, hits = 0;
    double mass = 0, deletionAuc = 0, insertionAuc = 0;
    std::vector<double> deletion, insertion;
};

// Mass in the box and the pointing game of a cell map, as attention's.
void addBoxScores(MapSums& s, const std::vector<double>& map, int rows, int cols, const Image& image, const Box& box) {
    TraceStep step;
    step.grid = GridDistribution{rows, cols, {}};
    for (double v : map) step.grid->probs.push_back(float(v));
    s.mass += gridMassInBox(*step.grid, image.width, image.height, box);
    s.hits += pointsAt(step, image.width, image.height, box) ? 1 : 0;
    ++s.boxed;
}

void addCurves(MapSums& s, const DeletionInsertion& c) {
    if (s.deletion.empty()) s.deletion.assign(c.deletion.size(), 0.0), s.insertion.assign(c.insertion.size(), 0.0);
    for (size_t k = 0; k < c.deletion.size(); ++k) s.deletion[k] += c.deletion[k], s.insertion[k] += c.insertion[k];
    s.deletionAuc += c.deletionAuc;
    s.insertionAuc += c.insertionAuc;
    ++s.images;
}

MapFigures figuresOf(const std::string& method, const MapSums& s) {
    MapFigures f;
    f.method = method;
    f.images = s.images;
    f.boxed = s.boxed;
    const double n = double(std::max<std::int64_t>(1, s.images));
    if (s.boxed > 0) f.massInBox = s.mass / double(s.boxed), f.pointing = double(s.hits) / double(s.boxed);
    for (double v : s.deletion) f.deletion.push_back(v / n);
    for (double v : s.insertion) f.insertion.push_back(v / n);
    f.deletionAuc = s.deletionAuc / n;
    f.insertionAuc = s.insertionAuc / n;
    return f;
}

// The class the model gives the image under the rule: every map is attributed to it.
Result<int> predictedClass(AttentionModel& model, const Image& image, const std::string& rule, std::uint64_t seed) {
    auto p = model.outputProbs({image}, rule, seed);
    if (!p) return Error{p.error()};
    if (p->empty() || p->front().empty()) return Error{"the model gave no output"};
    return int(std::max_element(p->front().begin(), p->front().end()) - p->front().begin());
}

// The grid every map of the measurement uses, from the first image's trace.
Result<MapSettings> mapSettings(AttentionModel& model, const Image& first, const MapComparisonOptions& o) {
    MapSettings s;
    s.rule = o.rule.empty() ? model.deterministicRule() : o.rule;
    s.seed = o.seed;
    s.attribution = o.attribution;
    auto t = model.trace(first, s.rule, o.seed, "grid");
    if (!t) return Error{t.error()};
    std::tie(s.rows, s.cols) = measuredGrid(model, *t, o.gridForGlimpses);
    return s;
}

// Runs the sanity check on the first images, or says why it did not.
Result<Unit> addSanity(AttentionModel& model, const std::vector<Image>& images, const std::vector<int>& targets,
                       const MapComparisonOptions& o, const MapSettings& settings, MapComparisonReport& r) {
    if (images.empty()) {
        r.sanityNote = "--sanity-images 0";
        return Unit{};
    }
    GradientForward* f = model.gradientForward();
    if (!f || f->parameterGroups().empty()) {
        r.sanityNote = model.displayName() + " offers no parameter groups";
        return Unit{};
    }
    auto curves = sanityCheck(model, images, targets, o.methods, settings, o.seed, o.sanityThreshold);
    if (!curves) return Error{curves.error()};
    for (size_t m = 0; m < curves->size(); ++m) r.maps[m].sanity = (*curves)[m];
    r.sanityImages = std::int64_t(images.size());
    return Unit{};
}

}  // namespace

Result<MapComparisonReport> compareMaps(AttentionModel& model, const Dataset& dataset, Split split,
                                        const MapComparisonOptions& o, const Progress& progress) {
    MapComparisonReport r;
    auto selection = selectMethods(o.methods, [&model](const std::string& m) { return checkMapMethod(model, m); });
    std::vector<std::string> methods = std::move(selection.kept);  // the rest are left out with the reason
    r.omitted = std::move(selection.omitted);
    if (methods.empty() && !o.methods.empty()) return Error{r.omitted.front().second};
    if (o.methods.empty() || o.limit < 1 || o.sanityImages < 0 || o.curvePoints < 1)
        return Error{"map faithfulness: methods, images and curve points must be positive"};
    const auto& info = dataset.info();
    if (info.width != model.imageSize() || info.channels != model.channels())
        return Error{"dataset " + info.name + " does not fit the model's " + std::to_string(model.imageSize()) + " px inputs"};
    const std::int64_t total = std::min(o.limit, dataset.size(split));
    if (total < 1) return Error{"the " + std::string(splitName(split)) + " split of " + info.name + " is empty"};
    const auto start = std::chrono::steady_clock::now();
    auto settings = mapSettings(model, dataset.sample(split, 0).image, o);
    if (!settings) return Error{settings.error()};
    r.dataset = info.name;
    r.rule = settings->rule;
    r.rows = settings->rows;
    r.cols = settings->cols;
    r.fractions = curveFractions(o.curvePoints);
    r.sanityThreshold = o.sanityThreshold;
    r.seed = o.seed;
    std::vector<MapSums> sums(methods.size());
    std::vector<Image> sanityImages;
    std::vector<int> sanityTargets;
    double area = 0;
    for (std::int64_t i = 0; i < total; ++i) {
        const Sample sample = dataset.sample(split, i);
        auto target = predictedClass(model, sample.image, r.rule, o.seed);
        if (!target) return Error{target.error()};
        const bool boxed = sample.box.w > 0 && sample.box.h > 0;
        for (size_t m = 0; m < methods.size(); ++m) {
            auto map = imageMap(model, methods[m], sample.image, *target, *settings);
            if (!map && i == 0 && methods.size() > 1) {  // the model cannot give this map: its row is left out
                r.omitted.push_back({methods[m], map.error()});
                methods.erase(methods.begin() + std::ptrdiff_t(m));
                sums.erase(sums.begin() + std::ptrdiff_t(m));
                --m;
                continue;
            }
            if (!map) return Error{methods[m] + ": " + map.error()};
            auto curves = deletionInsertionCurves(model, sample.image, r.rows, r.cols, *map, *target, r.rule, o.seed,
                                                  r.fractions);
            if (!curves) return Error{curves.error()};
            addCurves(sums[m], *curves);
            if (boxed) addBoxScores(sums[m], *map, r.rows, r.cols, sample.image, sample.box);
        }
        ++r.images;
        if (boxed) ++r.boxed, area += sample.box.w * sample.box.h / double(sample.image.width * sample.image.height);
        if (i < o.sanityImages) sanityImages.push_back(sample.image), sanityTargets.push_back(*target);
        if (progress && !progress(double(i + 1) / double(total + 1))) return Error{"the map faithfulness measurement was cancelled"};
    }
    if (r.boxed > 0) r.uniformMass = area / double(r.boxed);
    for (size_t m = 0; m < methods.size(); ++m) r.maps.push_back(figuresOf(methods[m], sums[m]));
    MapComparisonOptions given = o;
    given.methods = methods;
    if (auto ok = addSanity(model, sanityImages, sanityTargets, given, *settings, r); !ok) return Error{ok.error()};
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace saccade
