// The reviewer's report: its building blocks, one report of a bundled model, and the same file
// rendered by a real headless browser (Debian's chromium) when it is installed.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "analysis/runs/boundary_sweep.h"
#include "common/base64.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "models/attention_model.h"
#include "report/html_report.h"
#include "report/svg_chart.h"
#include "test_device.h"

extern char** environ;

using namespace saccade;
namespace fs = std::filesystem;

namespace {

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// A small report of the bundled hard patch model, once for the tests that need it.
const std::string& bundledReport() {
    static const std::string html = [] {
        auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt", test::testDevice());
        if (!model) return std::string();
        ReportOptions o;
        o.modelPath = SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt";
        o.limit = 40;
        o.runs = 20;
        o.sweepRuns = 1;
        o.faithfulnessImages = 10;
        o.costRepeats = 1;
        o.imageIndex = 12;
        auto r = buildHtmlReport(**model, o);
        return r ? *r : std::string();
    }();
    return html;
}

bool haveFashion() { return openDataset("translated-fashion60").ok(); }

std::string findOnPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    for (std::size_t start = 0; start <= dirs.size();) {
        const std::size_t end = std::min(dirs.find(':', start), dirs.size());
        const fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
        start = end + 1;
    }
    return {};
}

}  // namespace

TEST(Base64, MatchesTheRfcVectors) {
    EXPECT_EQ(base64Encode(""), "");
    EXPECT_EQ(base64Encode("f"), "Zg==");
    EXPECT_EQ(base64Encode("fo"), "Zm8=");
    EXPECT_EQ(base64Encode("foo"), "Zm9v");
    EXPECT_EQ(base64Encode("foob"), "Zm9vYg==");
    EXPECT_EQ(base64Encode("fooba"), "Zm9vYmE=");
    EXPECT_EQ(base64Encode("foobar"), "Zm9vYmFy");
    EXPECT_EQ(base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(SvgChart, EscapesTextAndDrawsOneBarAndWhiskerPerRow) {
    EXPECT_EQ(escapeHtml("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    const std::string svg = svgBars("Accuracy <per rule>", {{"argmax", 0.83, 0.745, 0.891, false},
                                                             {"sample", 0.8, 0.7, 0.88, true},
                                                             {"no interval", 0.5, -1, -1, false}});
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_EQ(count(svg, "<rect"), 3);
    EXPECT_EQ(count(svg, "stroke=\"#222\""), 2);  // whiskers only where an interval is given
    EXPECT_NE(svg.find("Accuracy &lt;per rule&gt;"), std::string::npos);
    EXPECT_NE(svg.find(">83.0%<"), std::string::npos);
    EXPECT_EQ(count(svg, "fill=\"#d62728\""), 1);  // the highlighted row
    const std::string stacked = svgStackedBars("Time", {"a", "b"}, {{"x", {1, 2}}, {"y", {0.5, 0.5}}}, "ms");
    EXPECT_EQ(count(stacked, "<rect"), 4 + 2);  // two segments per row, two legend swatches
    EXPECT_NE(stacked.find(">3.00<"), std::string::npos);  // the row total
}

TEST(HtmlReport, HoldsEverySectionSelfContained) {
    if (!haveFashion()) GTEST_SKIP() << "the Fashion-MNIST files are not installed";
    const std::string& html = bundledReport();
    ASSERT_FALSE(html.empty());
    for (const char* heading : {"Model card", "Accuracy per rule", "One image: 20 sampled runs against argmax",
                                "Failure map", "Faithfulness", "What selection costs, per stage"})
        EXPECT_NE(html.find(heading), std::string::npos) << heading;
    EXPECT_NE(html.find("sample (training rule)"), std::string::npos);
    EXPECT_NE(html.find("Attention is a record of access"), std::string::npos);
    EXPECT_EQ(html.find("Not in this report"), std::string::npos);
    // Self-contained: no link, script or stylesheet from elsewhere; figures are inline.
    EXPECT_EQ(count(html, "src=\"http"), 0);
    EXPECT_EQ(count(html, "href="), 0);
    EXPECT_EQ(count(html, "<script"), 0);
    EXPECT_EQ(count(html, "data:image/png;base64,"), 3);  // deterministic run, sampled run, failure map
    EXPECT_EQ(count(html, "<svg"), 4);                     // accuracy, run outputs, deletion, cost
    // The accuracy row says right / n out of the 40 images.
    EXPECT_TRUE(std::regex_search(html, std::regex("<td>argmax</td><td>[0-9]+ / 40</td>")));
}

TEST(HtmlReport, CancelsBetweenSections) {
    if (!haveFashion()) GTEST_SKIP() << "the Fashion-MNIST files are not installed";
    auto model = loadAttentionModel(SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt", test::testDevice());
    ASSERT_TRUE(model.ok()) << model.error();
    ReportOptions o;
    o.modelPath = SACCADE_SAMPLES_DIR "/models/patch-hard-fashion60.pt";
    o.limit = 20;
    double seen = 0;
    auto r = buildHtmlReport(**model, o, [&](double f) {
        seen = f;
        return f < 0.3;
    });
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), "the report was cancelled");
    EXPECT_LT(seen, 0.45);  // it stopped in or right after the accuracy section
}

TEST(HtmlReport, RendersInAHeadlessBrowser) {
    if (!haveFashion()) GTEST_SKIP() << "the Fashion-MNIST files are not installed";
    const std::string chromium = findOnPath("chromium");
    if (chromium.empty()) GTEST_SKIP() << "Debian's chromium is not installed (scripts/install-deps.sh installs it)";
    const fs::path dir = fs::temp_directory_path() / ("saccade-report-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path page = dir / "report.html", shot = dir / "report.png";
    std::ofstream(page) << bundledReport();
    std::vector<std::string> args{chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                  "--user-data-dir=" + (dir / "profile").string(), "--window-size=1100,2400",
                                  "--screenshot=" + shot.string(), "file://" + page.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Its D-Bus chatter goes to a log beside the page, not into the test output.
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    const std::string log = (dir / "chromium.log").string();
    posix_spawn_file_actions_addopen(&quiet, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&quiet, 1, 2);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, chromium.c_str(), &quiet, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&quiet);
    ASSERT_EQ(spawned, 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "chromium failed on the report";
    ImageLoadOptions rgb;
    rgb.channels = 3;
    auto png = loadImage(shot.string(), rgb);
    ASSERT_TRUE(png.ok()) << png.error();
    EXPECT_EQ(png->width, 1100);
    // Not blank: text, tables and figures cover a good part of the page, and the accuracy bars'
    // blue (#1f77b4) is there.
    long dark = 0, blue = 0;
    for (int y = 0; y < png->height; ++y)
        for (int x = 0; x < png->width; ++x) {
            const int r = png->at(x, y, 0), g = png->at(x, y, 1), b = png->at(x, y, 2);
            dark += r + g + b < 600;
            blue += std::abs(r - 0x1f) < 12 && std::abs(g - 0x77) < 12 && std::abs(b - 0xb4) < 12;
        }
    EXPECT_GT(double(dark) / (png->width * png->height), 0.03);
    EXPECT_GT(blue, 2000);
    fs::remove_all(dir);
}

TEST(Report, SweepsWithTheSameRunsPerOffsetAsTheCliAndTheGui) {
    // One default: a report that sampled 10 runs per offset where the GUI samples 20 said 0% where
    // the GUI said 5%.
    EXPECT_EQ(saccade::ReportOptions{}.sweepRuns, saccade::kSweepRuns);
    EXPECT_EQ(saccade::SweepOptions{}.runs, saccade::kSweepRuns);
}
