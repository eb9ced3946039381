#include "io/session.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "io/checkpoint.h"
#include "io/json_fields.h"

namespace saccade {

namespace {

constexpr const char* kSchema = "saccade.session";
constexpr std::size_t kMaxSessionBytes = 1u << 20;

}  // namespace

std::string sessionToJson(const Session& s) {
    nlohmann::json j{{"schema", kSchema},
                     {"version", kSessionSchemaVersion},
                     {"model", {{"path", s.modelPath}, {"crc32", s.modelCrc32}}},
                     {"rule", s.rule},
                     {"seed", s.seed},
                     {"step", s.step},
                     {"runs", s.runs},
                     {"overlays",
                      {{"heatmap", s.overlays.heatmap},
                       {"heatmap_opacity", s.overlays.heatmapOpacity},
                       {"chosen", s.overlays.chosen},
                       {"path", s.overlays.path},
                       {"truth", s.overlays.truth},
                       {"grid", s.overlays.grid}}},
                     {"page", s.page},
                     {"tab", s.tab},
                     {"notes", s.notes}};
    if (!s.pageTab.empty()) j["page_tab"] = s.pageTab;
    if (!s.attributionMap.empty()) j["attention_map"] = {{"method", s.attributionMap}, {"side_by_side", s.mapSideBySide}};
    if (s.sequences) {
        const auto& q = *s.sequences;
        j["sequences"] = {{"model", q.model}, {"compare", q.compare}, {"text", q.text}, {"rule", q.rule},
                          {"seed", q.seed}, {"step", q.step}, {"map", q.map}, {"head_view", q.headView}};
        if (!q.compareWith.empty()) j["sequences"]["compare_with"] = q.compareWith;
    }
    if (!s.imageFile.empty())
        j["image"] = {{"file", s.imageFile}};
    else
        j["image"] = {{"dataset", s.dataset}, {"index", s.sampleIndex}};
    return j.dump(2) + "\n";
}

Result<Session> sessionFromJson(const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        return Error{std::string("not JSON: ") + firstLine(e.what())};
    }
    try {
        if (!j.is_object()) return Error{"not a session: the file holds no JSON object"};
        if (!j.contains("schema") || !j["schema"].is_string() || j["schema"] != kSchema)
            return Error{"not a session: the schema is not \"saccade.session\""};
        const auto version = intField(j, "version", 1, 1000000);
        if (version > kSessionSchemaVersion)
            return Error{"session version " + std::to_string(version) + " is newer than this program reads (" +
                         std::to_string(kSessionSchemaVersion) + ")"};
        Session s;
        if (!j.contains("model") || !j["model"].is_object()) return Error{"model must be an object"};
        s.modelPath = stringField(j["model"], "path");
        s.modelCrc32 = stringField(j["model"], "crc32");
        if (s.modelPath.empty()) return Error{"model.path is empty"};
        if (!j.contains("image") || !j["image"].is_object()) return Error{"image must be an object"};
        const auto& image = j["image"];
        if (image.contains("file")) {
            s.imageFile = stringField(image, "file");
            if (s.imageFile.empty()) return Error{"image.file is empty"};
        } else {
            s.dataset = stringField(image, "dataset");
            if (s.dataset.empty()) return Error{"image.dataset is empty"};
            s.sampleIndex = intField(image, "index", 0, std::int64_t{1} << 40);
        }
        s.rule = stringField(j, "rule");
        s.seed = uintField(j, "seed");
        s.step = int(intField(j, "step", 0, 100000));
        s.runs = j.contains("runs") ? int(intField(j, "runs", 0, 10000)) : 0;  // optional
        if (!j.contains("overlays") || !j["overlays"].is_object()) return Error{"overlays must be an object"};
        const auto& o = j["overlays"];
        s.overlays.heatmap = boolField(o, "heatmap");
        s.overlays.heatmapOpacity = numberField(o, "heatmap_opacity", 0, 1);
        s.overlays.chosen = boolField(o, "chosen");
        s.overlays.path = boolField(o, "path");
        s.overlays.truth = boolField(o, "truth");
        s.overlays.grid = boolField(o, "grid");
        s.page = stringField(j, "page");
        s.tab = stringField(j, "tab");
        s.pageTab = j.contains("page_tab") ? stringField(j, "page_tab") : std::string();  // optional
        if (j.contains("attention_map")) {  // optional: sessions saved before it have none
            if (!j["attention_map"].is_object()) return Error{"attention_map must be an object"};
            s.attributionMap = stringField(j["attention_map"], "method");
            s.mapSideBySide = boolField(j["attention_map"], "side_by_side");
        }
        s.notes = stringField(j, "notes");
        if (j.contains("sequences")) {  // optional: sessions saved before it have none
            if (!j["sequences"].is_object()) return Error{"sequences must be an object"};
            const auto& q = j["sequences"];
            try {
                SessionSequences seq;
                seq.model = stringField(q, "model");
                if (seq.model.empty()) return Error{"sequences.model is empty"};
                seq.compare = stringField(q, "compare");
                seq.text = stringField(q, "text");
                seq.rule = stringField(q, "rule");
                seq.seed = uintField(q, "seed");
                seq.step = int(intField(q, "step", 0, 100000));
                seq.map = stringField(q, "map");
                seq.headView = boolField(q, "head_view");
                if (q.contains("compare_with")) seq.compareWith = stringField(q, "compare_with");  // a text encoder's
                s.sequences = seq;
            } catch (const JsonFieldError& e) {
                return Error{std::string("sequences: ") + e.what()};
            }
        }
        return s;
    } catch (const JsonFieldError& e) {
        return Error{e.what()};
    } catch (const nlohmann::json::exception& e) {
        return Error{firstLine(e.what())};
    }
}

Result<Unit> saveSession(const Session& session, const std::string& path) {
    if (path.size() < 8 || path.substr(path.size() - 8) != ".saccade")
        return Error{"a session file must end in .saccade: '" + path + "'"};
    return writeFileAtomic(path, sessionToJson(session));
}

Result<Session> loadSession(const std::string& path) {
    auto text = readFile(path, kMaxSessionBytes);
    if (!text) return Error{text.error()};
    auto s = sessionFromJson(*text);
    if (!s) return Error{"session '" + path + "': " + s.error()};
    // Relative paths (bundled tours) are relative to the session file's folder.
    Session session = *s;
    const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    std::vector<std::string*> paths = {&session.modelPath, &session.imageFile};
    if (session.sequences) paths.insert(paths.end(), {&session.sequences->model, &session.sequences->compare});
    // A dataset that is a folder ("faces/test", "../shots") is a path too; a built-in name has no '/'.
    if (session.dataset.find('/') != std::string::npos || session.dataset.rfind('.', 0) == 0) paths.push_back(&session.dataset);
    for (std::string* p : paths)
        if (!p->empty() && std::filesystem::path(*p).is_relative()) *p = (folder / *p).lexically_normal().string();
    return session;
}

Result<Tour> loadTour(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    Tour tour;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.path().extension() == ".saccade") tour.sessions.push_back(entry.path().string());
        std::sort(tour.sessions.begin(), tour.sessions.end());
        if (tour.sessions.empty()) return Error{"the folder '" + path + "' holds no .saccade sessions"};
        return tour;
    }
    auto text = readFile(path, kMaxSessionBytes);
    if (!text) return Error{text.error()};
    try {
        const auto j = nlohmann::json::parse(*text);
        if (!j.is_object() || !j.contains("schema") || j["schema"] != "saccade.tour")
            return Error{"'" + path + "' is not a tour: the schema is not \"saccade.tour\""};
        if (intField(j, "version", 1, 1000000) > 1) return Error{"'" + path + "': a tour version newer than this program reads"};
        tour.seconds = j.contains("seconds") ? numberField(j, "seconds", 0, 3600) : 0;
        if (!j.contains("sessions") || !j["sessions"].is_array() || j["sessions"].empty())
            return Error{"'" + path + "': sessions must be a non-empty list of .saccade files"};
        const fs::path folder = fs::absolute(path).parent_path();
        for (const auto& item : j["sessions"]) {
            if (!item.is_string()) return Error{"'" + path + "': every entry of sessions must be a file name"};
            fs::path p = item.get<std::string>();
            tour.sessions.push_back((p.is_relative() ? folder / p : p).lexically_normal().string());
        }
        return tour;
    } catch (const JsonFieldError& e) {
        return Error{"'" + path + "': " + e.what()};
    } catch (const nlohmann::json::exception& e) {
        return Error{"'" + path + "' is not JSON: " + firstLine(e.what())};
    }
}

Result<Unit> checkSessionModel(const Session& s) {
    auto crc = fileCrc32(s.modelPath);
    if (!crc) return Error{"the session's model '" + s.modelPath + "' was moved or deleted (" + crc.error() + ")"};
    if (!s.modelCrc32.empty() && *crc != s.modelCrc32)
        return Error{"the session's model '" + s.modelPath + "' changed since the session was saved (CRC-32 " +
                     s.modelCrc32 + " then, " + *crc + " now)"};
    return Unit{};
}

}  // namespace saccade
