#include "data/dataset.h"
#include "data/folder_dataset.h"

#include "data/canvas.h"
#include "data/fashion_mnist.h"
#include "data/procedural_digits.h"
#include "data/procedural_scenes.h"

namespace saccade {

namespace {

struct Entry {
    const char* name;
    const char* description;
    bool fashion;  // else procedural digits
    int canvas;
    int distractors;
};

const Entry kCanvasEntries[] = {
    {"fashion28", "Fashion-MNIST, 28x28, as packaged", true, 28, 0},
    {"translated-fashion60", "a Fashion-MNIST item at a random place on 60x60", true, 60, 0},
    {"cluttered-fashion60", "translated 60x60 with 4 distractors (8x8 crops)", true, 60, 4},
    {"translated-fashion100", "a Fashion-MNIST item at a random place on 100x100", true, 100, 0},
    {"cluttered-fashion100", "translated 100x100 with 8 distractors (8x8 crops)", true, 100, 8},
    {"digits28", "procedural Hershey-font digits, 28x28", false, 28, 0},
    {"translated-digits60", "a procedural digit at a random place on 60x60", false, 60, 0},
    {"cluttered-digits60", "translated digits 60x60 with 4 distractors", false, 60, 4},
    {"cluttered-digits100", "translated digits 100x100 with 8 distractors", false, 100, 8},
};
struct SceneEntry {
    const char* name;
    const char* description;
    SceneOptions (*options)(std::uint64_t seed);
};

const SceneEntry kSceneEntries[] = {
    {"scenes64", "procedural RGB scenes, 64x64, 1-3 shapes with a caption",
     [](std::uint64_t seed) {
         SceneOptions o;  // the defaults are scenes64
         o.seed = seed;
         return o;
     }},
    {"scenes96", "harder RGB scenes, 96x96, 2-4 shapes (some ~12 px) on noisy texture, captioned",
     scenes96Options},
};
constexpr std::int64_t kSceneTrain = 100000, kSceneTest = 10000;

const SceneEntry* findScenes(const std::string& name) {
    for (const auto& e : kSceneEntries)
        if (name == e.name) return &e;
    return nullptr;
}

class CanvasDataset : public Dataset {
public:
    CanvasDataset(const Entry& e, std::shared_ptr<const ObjectSource> source, std::uint64_t seed)
        : m_source(std::move(source)) {
        m_options.size = e.canvas;
        m_options.distractors = e.distractors;
        m_options.seed = seed;
        m_info = {e.name, e.description, e.canvas, e.canvas, 1, m_source->size(Split::Train),
                  m_source->size(Split::Test), m_source->classNames()};
    }
    const DatasetInfo& info() const override { return m_info; }
    Sample sample(Split split, std::int64_t index) const override {
        return composeCanvas(*m_source, split, index, m_options);
    }
    const ObjectSource* objectSource() const override { return m_source.get(); }

private:
    std::shared_ptr<const ObjectSource> m_source;
    CanvasOptions m_options;
    DatasetInfo m_info;
};

class SceneDataset : public Dataset {
public:
    SceneDataset(const SceneEntry& e, std::uint64_t seed) : m_options(e.options(seed)) {
        m_info = {e.name, e.description, m_options.size, m_options.size, 3, kSceneTrain, kSceneTest,
                  {}};
    }
    const DatasetInfo& info() const override { return m_info; }
    Sample sample(Split split, std::int64_t index) const override {
        return renderScene(m_options, split, index);
    }
    const ObjectSource* objectSource() const override { return nullptr; }

private:
    SceneOptions m_options;
    DatasetInfo m_info;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> datasetNames() {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : kCanvasEntries) out.emplace_back(e.name, e.description);
    for (const auto& e : kSceneEntries) out.emplace_back(e.name, e.description);
    return out;
}

std::optional<DatasetShape> datasetShape(const std::string& name) {
    if (const SceneEntry* e = findScenes(name)) {
        const int size = e->options(1).size;
        return DatasetShape{size, size, 3};
    }
    for (const auto& e : kCanvasEntries)
        if (name == e.name) return DatasetShape{e.canvas, e.canvas, 1};
    return std::nullopt;
}

Result<std::shared_ptr<const Dataset>> openDataset(const std::string& name,
                                                   const DatasetOptions& options) {
    if (const SceneEntry* e = findScenes(name))
        return std::shared_ptr<const Dataset>(std::make_shared<SceneDataset>(*e, options.seed));
    for (const auto& e : kCanvasEntries) {
        if (name != e.name) continue;
        std::shared_ptr<const ObjectSource> source;
        if (e.fashion) {
            auto fashion = FashionMnist::load(options.fashionDir);
            if (!fashion) return Error{fashion.error()};
            source = *fashion;
        } else {
            source = std::make_shared<ProceduralDigits>(options.seed);
        }
        return std::shared_ptr<const Dataset>(std::make_shared<CanvasDataset>(e, source, options.seed));
    }
    if (isImageFolder(name)) return openImageFolder(name, options.classNames, options.fit, options.unlabelled);  // after the registered names
    std::string known;
    for (const auto& [n, d] : datasetNames()) known += (known.empty() ? "" : ", ") + n;
    if (name.empty()) return Error{"no dataset given (this model names none): give --dataset NAME or an image folder"};
    return Error{"unknown dataset '" + name + "' (known: " + known + "; or an image folder FOLDER/CLASS/IMAGE.png)"};
}

Result<Split> parseSplit(const std::string& name) {
    if (name == "train") return Split::Train;
    if (name == "test") return Split::Test;
    return Error{"unknown split '" + name + "' (use train or test)"};
}

}  // namespace saccade
