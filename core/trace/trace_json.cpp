// JSON form of the trace ("saccade.trace", version kTraceSchemaVersion).
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/trace.h"

namespace saccade {

namespace {

using nlohmann::json;
const char* kSchema = "saccade.trace";

json boxToJson(const Box& b) { return json::array({b.x, b.y, b.w, b.h}); }

// Reading: every accessor names the JSON path of what is missing or malformed.
template <typename T>
struct IsVector : std::false_type {};
template <typename U>
struct IsVector<std::vector<U>> : std::true_type {};

// JSON numbers bound for integers must be integers that fit: nlohmann would truncate 10.5 and
// 3e71 (undefined behaviour) and wrap 4294967306 to 10.
template <typename T>
bool integersFit(const json& v) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if (!v.is_number_integer()) return false;
        if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
        const auto x = v.get<std::int64_t>();
        return x >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
               (x < 0 || static_cast<std::uint64_t>(x) <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    } else if constexpr (IsVector<T>::value) {
        if (!v.is_array()) return true;  // get<T>() reports the wrong type
        for (const auto& item : v)
            if (!integersFit<typename T::value_type>(item)) return false;
        return true;
    } else {
        return true;
    }
}

struct Reader {
    const json& node;
    std::string path;

    const json& at(const std::string& key) const {
        if (!node.is_object() || !node.contains(key))
            throw std::runtime_error("missing field '" + path + "/" + key + "'");
        return node.at(key);
    }
    bool has(const std::string& key) const {
        return node.is_object() && node.contains(key) && !node.at(key).is_null();
    }
    Reader child(const std::string& key) const { return {at(key), path + "/" + key}; }

    template <typename T>
    T get(const std::string& key) const {
        if (!integersFit<T>(at(key)))
            throw std::runtime_error("field '" + path + "/" + key + "' holds a number that is not a whole number in range");
        try {
            return at(key).get<T>();
        } catch (const json::exception&) {
            throw std::runtime_error("field '" + path + "/" + key + "' has the wrong type");
        }
    }
    template <typename T>
    T get(const std::string& key, T fallback) const {
        return has(key) ? get<T>(key) : fallback;
    }
};

Box boxFromJson(const json& j, const std::string& path) {
    if (!j.is_array() || j.size() != 4)
        throw std::runtime_error("field '" + path + "' must be [x, y, w, h]");
    try {
        return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>(), j[3].get<double>()};
    } catch (const json::exception&) {
        throw std::runtime_error("field '" + path + "' must hold four numbers");
    }
}

json stepToJson(const TraceStep& s) {
    json j;
    if (s.grid) j["grid"] = {{"rows", s.grid->rows}, {"cols", s.grid->cols}, {"probs", s.grid->probs}};
    if (s.gaussian) {
        j["gaussian"] = {{"mean", {s.gaussian->meanX, s.gaussian->meanY}},
                         {"std", {s.gaussian->stdX, s.gaussian->stdY}}};
    }
    j["chosen_cells"] = s.chosenCells;
    if (s.chosenPoint) j["chosen_point"] = {(*s.chosenPoint)[0], (*s.chosenPoint)[1]};
    json glimpses = json::array();
    for (const auto& g : s.glimpses) glimpses.push_back({{"scale", g.scale}, {"box", boxToJson(g.box)}});
    j["glimpses"] = glimpses;
    j["log_prob"] = s.logProb;
    j["entropy"] = s.entropy;
    if (!s.outputProbs.empty()) j["output_probs"] = s.outputProbs;
    if (!s.token.empty()) j["token"] = s.token;
    if (s.wordObject >= 0) j["word_object"] = s.wordObject;
    return j;
}

TraceStep stepFromJson(const Reader& r) {
    TraceStep s;
    if (r.has("grid")) {
        const auto g = r.child("grid");
        s.grid = GridDistribution{g.get<int>("rows"), g.get<int>("cols"),
                                  g.get<std::vector<float>>("probs")};
    }
    if (r.has("gaussian")) {
        const auto g = r.child("gaussian");
        const auto mean = g.get<std::vector<double>>("mean");
        const auto sd = g.get<std::vector<double>>("std");
        if (mean.size() != 2 || sd.size() != 2)
            throw std::runtime_error("field '" + g.path + "' needs mean and std of two numbers");
        s.gaussian = GaussianPolicy{mean[0], mean[1], sd[0], sd[1]};
    }
    s.chosenCells = r.get<std::vector<int>>("chosen_cells", {});
    if (r.has("chosen_point")) {
        const auto p = r.get<std::vector<double>>("chosen_point");
        if (p.size() != 2) throw std::runtime_error("field '" + r.path + "/chosen_point' needs 2 numbers");
        s.chosenPoint = std::array<double, 2>{p[0], p[1]};
    }
    if (r.has("glimpses")) {
        const auto& list = r.at("glimpses");
        for (size_t i = 0; i < list.size(); ++i) {
            const Reader g{list[i], r.path + "/glimpses/" + std::to_string(i)};
            s.glimpses.push_back({g.get<int>("scale"), boxFromJson(g.at("box"), g.path + "/box")});
        }
    }
    s.logProb = r.get<double>("log_prob");
    s.entropy = r.get<double>("entropy");
    s.outputProbs = r.get<std::vector<float>>("output_probs", {});
    s.token = r.get<std::string>("token", "");
    s.wordObject = r.get<int>("word_object", -1);
    return s;
}

}  // namespace

std::string traceToJson(const Trace& t, int indent) {
    json j;
    j["schema"] = kSchema;
    j["version"] = t.schemaVersion;
    j["model_id"] = t.modelId;
    j["image_id"] = t.imageId;
    j["rule"] = t.rule;
    j["seed"] = t.seed;
    j["device"] = t.device;
    j["image_size"] = {t.imageWidth, t.imageHeight};
    j["class_names"] = t.classNames;
    json steps = json::array();
    for (const auto& s : t.steps) steps.push_back(stepToJson(s));
    j["steps"] = steps;
    j["output"] = {{"label", t.output.label}, {"probs", t.output.probs}, {"text", t.output.text}};
    if (t.groundTruth) {
        json boxes = json::array();
        for (const auto& b : t.groundTruth->boxes) boxes.push_back(boxToJson(b));
        j["ground_truth"] = {{"label", t.groundTruth->label}, {"boxes", boxes}};
        if (!t.groundTruth->names.empty()) j["ground_truth"]["names"] = t.groundTruth->names;
        if (!t.groundTruth->references.empty()) j["ground_truth"]["references"] = t.groundTruth->references;
    }
    return j.dump(indent);
}

Result<Trace> traceFromJson(const std::string& text) {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Error{"not valid JSON"};
    try {
        const Reader r{j, ""};
        if (!j.is_object() || r.get<std::string>("schema", "") != kSchema)
            return Error{"not a Saccade trace (schema is not \"saccade.trace\")"};
        Trace t;
        t.schemaVersion = r.get<int>("version");
        if (t.schemaVersion > kTraceSchemaVersion || t.schemaVersion < 1) {
            return Error{"trace schema version " + std::to_string(t.schemaVersion) +
                         " is not supported (this program reads 1.." +
                         std::to_string(kTraceSchemaVersion) + ")"};
        }
        t.modelId = r.get<std::string>("model_id");
        t.imageId = r.get<std::string>("image_id");
        t.rule = r.get<std::string>("rule");
        t.seed = r.get<std::uint64_t>("seed");
        t.device = r.get<std::string>("device", "");
        const auto size = r.get<std::vector<int>>("image_size", {0, 0});
        if (size.size() != 2) throw std::runtime_error("field '/image_size' needs [width, height]");
        t.imageWidth = size[0];
        t.imageHeight = size[1];
        t.classNames = r.get<std::vector<std::string>>("class_names", {});
        const auto& steps = r.at("steps");
        if (!steps.is_array()) throw std::runtime_error("field '/steps' must be an array");
        for (size_t i = 0; i < steps.size(); ++i)
            t.steps.push_back(stepFromJson({steps[i], "/steps/" + std::to_string(i)}));
        const auto out = r.child("output");
        t.output.label = out.get<int>("label", -1);
        t.output.probs = out.get<std::vector<float>>("probs", {});
        t.output.text = out.get<std::string>("text", "");
        if (r.has("ground_truth")) {
            const auto gt = r.child("ground_truth");
            GroundTruth g;
            g.label = gt.get<int>("label", -1);
            if (gt.has("boxes")) {
                const auto& boxes = gt.at("boxes");
                for (size_t i = 0; i < boxes.size(); ++i)
                    g.boxes.push_back(boxFromJson(boxes[i], gt.path + "/boxes/" + std::to_string(i)));
            }
            g.names = gt.get<std::vector<std::string>>("names", {});
            g.references = gt.get<std::vector<std::string>>("references", {});
            t.groundTruth = g;
        }
        return validateTrace(t);
    } catch (const std::exception& e) {
        return Error{e.what()};
    }
}

}  // namespace saccade
