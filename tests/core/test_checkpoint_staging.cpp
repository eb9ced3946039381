// A staged training run: kept, it replaces the chosen checkpoint and its companions (an older
// run's metrics go); discarded, it leaves the chosen checkpoint as it was.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/checkpoint_staging.h"
#include "temp_dir.h"

namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string readText(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST(CheckpointStaging, AKeptRunReplacesTheCheckpointAndItsCompanions) {
    saccade::test::TempDir dir("saccade-staging");
    const auto out = (dir.path / "m.pt").string();
    const auto staged = saccade::stagedCheckpointPath(out);
    EXPECT_EQ(fs::path(staged).filename(), ".m.unsaved.pt");
    writeText(out, "old weights");
    writeText(dir.path / "m.json", "old sidecar");
    writeText(dir.path / "m.metrics.json", "old metrics");  // the new run writes none: it must go
    writeText(staged, "new weights");
    writeText(dir.path / ".m.unsaved.json", "new sidecar");
    writeText(dir.path / ".m.unsaved.metrics.csv", "new log");
    ASSERT_TRUE(saccade::promoteCheckpoint(staged, out).ok());
    EXPECT_EQ(readText(out), "new weights");
    EXPECT_EQ(readText(dir.path / "m.json"), "new sidecar");
    EXPECT_EQ(readText(dir.path / "m.metrics.csv"), "new log");
    EXPECT_FALSE(fs::exists(dir.path / "m.metrics.json"));
    EXPECT_FALSE(fs::exists(staged));
    EXPECT_FALSE(saccade::promoteCheckpoint(staged, out).ok());  // nothing staged any more: said
}

TEST(CheckpointStaging, ADiscardedRunLeavesTheCheckpointAsItWas) {
    saccade::test::TempDir dir("saccade-staging");
    const auto out = (dir.path / "m.pt").string();
    const auto staged = saccade::stagedCheckpointPath(out);
    writeText(out, "old weights");
    writeText(dir.path / "m.json", "old sidecar");
    writeText(staged, "new weights");
    writeText(dir.path / ".m.unsaved.json", "new sidecar");
    saccade::discardCheckpoint(staged);
    EXPECT_EQ(readText(out), "old weights");
    EXPECT_EQ(readText(dir.path / "m.json"), "old sidecar");
    EXPECT_FALSE(fs::exists(staged));
    EXPECT_FALSE(fs::exists(dir.path / ".m.unsaved.json"));
}
