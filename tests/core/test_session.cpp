// Session files: round trip, strict reading, and a moved or changed model reported.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"
#include "io/checkpoint.h"
#include "io/session.h"

using namespace saccade;
namespace fs = std::filesystem;

namespace {

Session demo(const std::string& model) {
    Session s;
    s.modelPath = model;
    s.dataset = "translated-fashion60";
    s.sampleIndex = 12;
    s.rule = "ksample:10";
    s.seed = 18446744073709551615ull;  // the largest seed survives JSON
    s.step = 2;
    s.runs = 1000;
    s.overlays.heatmapOpacity = 0.3;
    s.overlays.grid = true;
    s.page = "attention";
    s.tab = "runs";
    s.notes = "Hard attention on a sneaker: \"Bag\" under argmax.\nSecond line.";
    SessionSequences q;
    q.model = "/models/seq-dates-transformer.pt";
    q.compare = "/models/seq-dates-additive.pt";
    q.text = "17 SEP 1999";
    q.map = "encoder rollout";
    q.seed = 7;
    q.step = 3;
    q.headView = true;
    s.sequences = q;
    return s;
}

fs::path sessionDir() {
    const fs::path d = fs::temp_directory_path() / ("saccade-session-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(Session, RoundTripsEveryField) {
    const Session s = demo("/models/m.pt");
    auto back = sessionFromJson(sessionToJson(s));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(back->modelPath, s.modelPath);
    EXPECT_EQ(back->dataset, "translated-fashion60");
    EXPECT_EQ(back->sampleIndex, 12);
    EXPECT_TRUE(back->imageFile.empty());
    EXPECT_EQ(back->rule, "ksample:10");
    EXPECT_EQ(back->seed, 18446744073709551615ull);
    EXPECT_EQ(back->step, 2);
    EXPECT_EQ(back->runs, 1000);
    EXPECT_DOUBLE_EQ(back->overlays.heatmapOpacity, 0.3);
    EXPECT_TRUE(back->overlays.grid);
    EXPECT_EQ(back->tab, "runs");
    EXPECT_TRUE(back->pageTab.empty());  // optional: absent in sessions without one
    EXPECT_EQ(sessionToJson(s).find("page_tab"), std::string::npos);
    Session onCost = s;
    onCost.page = "analysis";
    onCost.pageTab = "cost";
    auto cost = sessionFromJson(sessionToJson(onCost));
    ASSERT_TRUE(cost.ok()) << cost.error();
    EXPECT_EQ(cost->pageTab, "cost");
    EXPECT_TRUE(back->attributionMap.empty());  // optional: no map beside the attention
    EXPECT_EQ(sessionToJson(s).find("attention_map"), std::string::npos);
    Session withMap = s;
    withMap.attributionMap = "gradient-rollout";
    withMap.mapSideBySide = false;
    auto mapped = sessionFromJson(sessionToJson(withMap));
    ASSERT_TRUE(mapped.ok()) << mapped.error();
    EXPECT_EQ(mapped->attributionMap, "gradient-rollout");
    EXPECT_FALSE(mapped->mapSideBySide);
    auto notObject = sessionToJson(s);
    notObject.insert(notObject.find('{') + 1, "\"attention_map\": 3,");
    auto refused = sessionFromJson(notObject);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "attention_map must be an object");
    EXPECT_EQ(back->notes, s.notes);
    ASSERT_TRUE(back->sequences.has_value());
    EXPECT_EQ(back->sequences->compare, "/models/seq-dates-additive.pt");
    EXPECT_EQ(back->sequences->text, "17 SEP 1999");
    EXPECT_EQ(back->sequences->map, "encoder rollout");
    EXPECT_EQ(back->sequences->seed, 7u);
    EXPECT_EQ(back->sequences->step, 3);
    EXPECT_TRUE(back->sequences->headView);
    EXPECT_TRUE(back->sequences->compareWith.empty());  // optional: a text encoder's only
    EXPECT_EQ(sessionToJson(s).find("compare_with"), std::string::npos);
    Session encoder = s;
    encoder.sequences->compareWith = "A dog walked in the park.";
    auto withSentence = sessionFromJson(sessionToJson(encoder));
    ASSERT_TRUE(withSentence.ok()) << withSentence.error();
    EXPECT_EQ(withSentence->sequences->compareWith, "A dog walked in the park.");
    Session without = s;  // sessions saved before the Sequences page had none
    without.sequences.reset();
    auto old = sessionFromJson(sessionToJson(without));
    ASSERT_TRUE(old.ok());
    EXPECT_FALSE(old->sequences.has_value());
    Session file = s;
    file.imageFile = "/images/shoe.png";
    auto withFile = sessionFromJson(sessionToJson(file));
    ASSERT_TRUE(withFile.ok());
    EXPECT_EQ(withFile->imageFile, "/images/shoe.png");
    EXPECT_TRUE(withFile->dataset.empty());
}

TEST(Session, ReadsStrictlyAndNamesTheField) {
    const std::string good = sessionToJson(demo("/m.pt"));
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return sessionFromJson(text.replace(at, from.size(), to));
    };
    EXPECT_NE(sessionFromJson("{").error().find("not JSON"), std::string::npos);
    EXPECT_NE(sessionFromJson("[1]").error().find("no JSON object"), std::string::npos);
    EXPECT_NE(replaced("\"saccade.session\"", "\"saccade.trace\"").error().find("schema"), std::string::npos);
    EXPECT_NE(replaced("\"version\": 1", "\"version\": 2").error().find("newer than this program reads"), std::string::npos);
    EXPECT_NE(replaced("\"step\": 2", "\"step\": -1").error().find("step"), std::string::npos);
    EXPECT_NE(replaced("\"step\": 2", "\"step\": 2.5").error().find("step"), std::string::npos);
    EXPECT_NE(replaced("\"heatmap_opacity\": 0.3", "\"heatmap_opacity\": 2").error().find("heatmap_opacity"),
              std::string::npos);
    EXPECT_NE(replaced("\"grid\": true", "\"grid\": 1").error().find("grid"), std::string::npos);
    EXPECT_NE(replaced("\"runs\": 1000", "\"runs\": 20000").error().find("runs"), std::string::npos);
    EXPECT_EQ(replaced("\"runs\": 1000,", "")->runs, 0);  // optional
    EXPECT_NE(replaced("\"index\": 12", "\"index\": \"12\"").error().find("index"), std::string::npos);
    EXPECT_NE(replaced("\"head_view\": true", "\"head_view\": 1").error().find("sequences: 'head_view' must be true or false, got 1"),
              std::string::npos);
    EXPECT_NE(replaced("\"step\": 3", "\"step\": -3").error().find("sequences: 'step'"), std::string::npos);
    EXPECT_NE(replaced("\"model\": \"/models/seq-dates-transformer.pt\"", "\"model\": \"\"").error().find("sequences.model"),
              std::string::npos);
    EXPECT_NE(replaced("\"path\": \"/m.pt\"", "\"path\": \"\"").error().find("model.path"), std::string::npos);
}

TEST(Session, SavesAtomicallyAndReportsAMovedOrChangedModel) {
    const fs::path dir = sessionDir();
    const fs::path model = dir / "model.pt";
    ASSERT_TRUE(writeFileAtomic(model.string(), "weights v1").ok());
    Session s = demo(model.string());
    s.modelCrc32 = *fileCrc32(model.string());
    EXPECT_EQ(s.modelCrc32, crc32Hex("weights v1"));
    EXPECT_NE(saveSession(s, (dir / "demo.json").string()).error().find("must end in .saccade"), std::string::npos);
    ASSERT_TRUE(saveSession(s, (dir / "demo.saccade").string()).ok());
    auto back = loadSession((dir / "demo.saccade").string());
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_TRUE(checkSessionModel(*back).ok());
    // The Sequences page's models, named relative to the session, are read beside it.
    Session relative = s;
    relative.sequences->model = "seq.pt";
    relative.sequences->compare.clear();
    ASSERT_TRUE(saveSession(relative, (dir / "relative.saccade").string()).ok());
    auto rel = loadSession((dir / "relative.saccade").string());
    ASSERT_TRUE(rel.ok()) << rel.error();
    EXPECT_EQ(rel->sequences->model, (dir / "seq.pt").lexically_normal().string());
    EXPECT_TRUE(rel->sequences->compare.empty());
    // An image folder named relative to the session is read beside it, not beside the current folder;
    // a built-in dataset name stays a name.
    Session folder = s;
    folder.dataset = "../shots";
    ASSERT_TRUE(saveSession(folder, (dir / "folder.saccade").string()).ok());
    auto shots = loadSession((dir / "folder.saccade").string());
    ASSERT_TRUE(shots.ok()) << shots.error();
    EXPECT_EQ(shots->dataset, (dir / "../shots").lexically_normal().string());
    EXPECT_EQ(back->dataset, "translated-fashion60");
    ASSERT_TRUE(writeFileAtomic(model.string(), "weights v2").ok());
    const std::string changed = checkSessionModel(*back).error();
    EXPECT_NE(changed.find("changed since the session was saved"), std::string::npos) << changed;
    EXPECT_NE(changed.find(s.modelCrc32), std::string::npos);
    fs::remove(model);
    EXPECT_NE(checkSessionModel(*back).error().find("was moved or deleted"), std::string::npos);
    EXPECT_NE(loadSession((dir / "none.saccade").string()).error().find("none.saccade"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Tour, ReadsAFolderOrATourFileAndResolvesNamesBesideIt) {
    const fs::path dir = sessionDir() / "tour";
    fs::create_directories(dir);
    ASSERT_TRUE(writeFileAtomic((dir / "model.pt").string(), "w").ok());
    Session s = demo("model.pt");  // relative: beside the session
    ASSERT_TRUE(saveSession(s, (dir / "2-b.saccade").string()).ok());
    ASSERT_TRUE(saveSession(s, (dir / "1-a.saccade").string()).ok());
    auto folder = loadTour(dir.string());
    ASSERT_TRUE(folder.ok()) << folder.error();
    ASSERT_EQ(folder->sessions.size(), 2u);
    EXPECT_EQ(fs::path(folder->sessions[0]).filename(), "1-a.saccade");  // name order
    auto loaded = loadSession(folder->sessions[0]);
    ASSERT_TRUE(loaded.ok());
    EXPECT_EQ(loaded->modelPath, (dir / "model.pt").lexically_normal().string());
    ASSERT_TRUE(writeFileAtomic((dir / "t.tour").string(),
                                R"({"schema": "saccade.tour", "version": 1, "seconds": 8, "sessions": ["2-b.saccade"]})")
                    .ok());
    auto file = loadTour((dir / "t.tour").string());
    ASSERT_TRUE(file.ok()) << file.error();
    EXPECT_EQ(file->seconds, 8);
    EXPECT_EQ(file->sessions, std::vector<std::string>{(dir / "2-b.saccade").string()});
    ASSERT_TRUE(writeFileAtomic((dir / "bad.tour").string(), R"({"schema": "saccade.tour", "version": 1, "sessions": []})").ok());
    EXPECT_NE(loadTour((dir / "bad.tour").string()).error().find("non-empty list"), std::string::npos);
    ASSERT_TRUE(writeFileAtomic((dir / "neg.tour").string(),
                                R"({"schema": "saccade.tour", "version": 1, "seconds": -1, "sessions": ["a"]})").ok());
    EXPECT_NE(loadTour((dir / "neg.tour").string()).error().find("seconds"), std::string::npos);
    fs::create_directories(dir / "empty");
    EXPECT_NE(loadTour((dir / "empty").string()).error().find("holds no .saccade"), std::string::npos);
    fs::remove_all(sessionDir());
}

TEST(Tour, TheBundledStoryOpensWithTheBundledModels) {
    auto tour = loadTour(SACCADE_SAMPLES_DIR "/tour/story.tour");
    ASSERT_TRUE(tour.ok()) << tour.error();
    EXPECT_EQ(tour->sessions.size(), 7u);
    for (const auto& path : tour->sessions) {
        auto s = loadSession(path);
        ASSERT_TRUE(s.ok()) << s.error();
        EXPECT_TRUE(checkSessionModel(*s).ok()) << checkSessionModel(*s).error();  // retrained models need new CRCs
        EXPECT_FALSE(s->notes.empty()) << path;
    }
}
