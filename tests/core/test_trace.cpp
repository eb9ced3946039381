#include <gtest/gtest.h>

#include <filesystem>

#include "common/atomic_file.h"
#include "trace/trace.h"

using namespace saccade;

namespace {
Trace sampleTrace() {
    Trace t;
    t.modelId = "patch/test";
    t.imageId = "fashion:test:7";
    t.rule = "sample";
    t.seed = 3;
    t.device = "cpu";
    t.imageWidth = 60;
    t.imageHeight = 60;
    t.classNames = {"a", "b"};
    TraceStep s;
    s.grid = GridDistribution{2, 2, {0.1f, 0.2f, 0.3f, 0.4f}};
    s.chosenCells = {3};
    s.glimpses = {{0, {30, 30, 30, 30}}};
    s.logProb = -0.916;
    s.entropy = 1.28;
    s.outputProbs = {0.25f, 0.75f};
    t.steps.push_back(s);
    TraceStep g;
    g.gaussian = GaussianPolicy{10, 20, 3, 3};
    g.chosenPoint = std::array<double, 2>{11.5, 19.0};
    g.glimpses = {{0, {5.5, 13, 12, 12}}, {1, {-0.5, 7, 24, 24}}};
    g.token = "a \"quoted\", word";
    t.steps.push_back(g);
    t.output = {1, {0.2f, 0.8f}, ""};
    t.groundTruth = GroundTruth{1, {{20, 22, 28, 28}}};
    return t;
}
}  // namespace

TEST(Trace, JsonRoundTripKeepsEveryField) {
    const auto t = sampleTrace();
    const auto back = traceFromJson(traceToJson(t));
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(traceToJson(*back), traceToJson(t));
    EXPECT_EQ(back->steps[0].grid->probs[3], 0.4f);
    EXPECT_EQ(back->steps[1].glimpses[1].box, (Box{-0.5, 7, 24, 24}));
    EXPECT_EQ(back->steps[1].token, "a \"quoted\", word");
    EXPECT_EQ(back->groundTruth->boxes[0], (Box{20, 22, 28, 28}));
    EXPECT_NE(traceToJson(t).find("\"schema\": \"saccade.trace\""), std::string::npos);
}

TEST(Trace, ErrorsNameTheField) {
    auto json = traceToJson(sampleTrace());
    auto without = [&](const std::string& key) {
        auto copy = json;
        const auto at = copy.find("\"" + key + "\"");
        copy.replace(at, key.size() + 2, "\"x_" + key + "\"");
        return traceFromJson(copy);
    };
    EXPECT_NE(without("rule").error().find("missing field '/rule'"), std::string::npos);
    EXPECT_NE(without("log_prob").error().find("'/steps/0/log_prob'"), std::string::npos);
    EXPECT_NE(traceFromJson("{").error().find("not valid JSON"), std::string::npos);
    EXPECT_NE(traceFromJson("{\"schema\":\"other\"}").error().find("not a Saccade trace"),
              std::string::npos);
    auto newer = json;
    newer.replace(newer.find("\"version\": 1"), 12, "\"version\": 9");
    EXPECT_NE(traceFromJson(newer).error().find("version 9 is not supported"), std::string::npos);
}

TEST(Trace, ValidationCatchesInconsistentSteps) {
    auto t = sampleTrace();
    t.steps[0].grid->rows = 3;
    EXPECT_NE(validateTrace(t).error().find("step 1: grid 3x2"), std::string::npos);
    t = sampleTrace();
    t.steps[0].chosenCells = {4};
    EXPECT_NE(validateTrace(t).error().find("off the grid"), std::string::npos);
    t = sampleTrace();
    t.steps[0].grid->probs[0] = 0.5f;
    EXPECT_NE(validateTrace(t).error().find("sums to"), std::string::npos);
    t = sampleTrace();
    t.output.probs = {0.1f, 0.2f, 0.7f};
    EXPECT_NE(validateTrace(t).error().find("3 probabilities for 2 classes"), std::string::npos);
}

TEST(Trace, CsvHasOneRowPerStep) {
    const auto csv = traceToCsv(sampleTrace());
    EXPECT_EQ(csv.rfind("step,chosen,log_prob,entropy,max_output_prob,output_argmax,token\n", 0),
              0u);
    EXPECT_NE(csv.find("\n1,3,-0.916,1.28,0.75,1,\"\"\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\"a \"\"quoted\"\", word\""), std::string::npos) << csv;
}

TEST(Trace, SaveAndLoadFiles) {
    const auto dir = std::filesystem::temp_directory_path() / ("trace-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto path = (dir / "t.json").string();
    ASSERT_TRUE(saveTrace(sampleTrace(), path).ok());
    const auto loaded = loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    EXPECT_EQ(loaded->seed, 3u);
    auto bad = sampleTrace();
    bad.steps[0].chosenCells = {9};
    EXPECT_NE(saveTrace(bad, path).error().find("refusing"), std::string::npos);
    EXPECT_EQ(loadTrace(path)->steps[0].chosenCells[0], 3);  // the good file is untouched
    ASSERT_TRUE(writeFileAtomic(path, "{\"schema\": \"saccade.trace\", \"version\": 1}").ok());
    EXPECT_NE(loadTrace(path).error().find("missing field '/model_id'"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(Trace, BundledVersion1TraceStillLoads) {
    // Golden file written by `saccade-cli attend --scorer scaled-dot --rule sample --seed 3`:
    // traces saved by schema version 1 must stay readable.
    const auto t = loadTrace(std::string(SACCADE_SAMPLES_DIR) + "/traces/engine-demo-sample-seed3.json");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->modelId, "engine-demo/scaled-dot");
    EXPECT_EQ(t->rule, "sample");
    EXPECT_EQ(t->steps.size(), 4u);
    EXPECT_EQ(t->steps[0].grid->probs.size(), 36u);
    EXPECT_EQ(t->groundTruth->boxes.size(), 4u);
}
