// Issue 18: bad input refused with one clear line, nothing replaced or lost.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "analysis/labs/scalar_lab.h"
#include "attention/reinforce.h"
#include "attention/selection.h"
#include "common/atomic_file.h"
#include "common/parse.h"
#include "data/image_io.h"
#include "data/probes.h"
#include "io/checkpoint.h"
#include "io/zip_check.h"
#include "models/attention_model.h"
#include "models/patch/patch_classifier.h"
#include "temp_dir.h"
#include "tiny_patch.h"
#include "test_device.h"

using namespace saccade;
using saccade::test::TempDir;
using saccade::test::saveTinyPatch;
using saccade::test::tinyPatchConfig;
using saccade::test::tinyPatchInfo;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Result<Unit> loadSmall(const std::string& path) {
    PatchClassifier net(tinyPatchConfig());
    return loadCheckpointWeights(*net, nullptr, path);
}

std::string bytesOf(const std::string& path) { return *readFile(path); }

void writeRaw(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string rewriteSidecar(const std::string& pt, const std::function<void(nlohmann::json&)>& edit) {
    auto j = nlohmann::json::parse(bytesOf(sidecarPath(pt)));
    edit(j);
    writeRaw(sidecarPath(pt), j.dump());
    return pt;
}

int entriesIn(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

}  // namespace

TEST(StrictParse, WholeNumbersAreWholeAndInRange) {
    EXPECT_EQ(*parseInteger("12", "n"), 12);
    EXPECT_EQ(*parseInteger("-7", "n"), -7);
    for (const char* bad : {"12abc", "1e3", "0x10", "5.9", "", "-", " 12", "+3", "99999999999999999999"})
        EXPECT_FALSE(parseInteger(bad, "--limit").ok()) << bad;
    const auto below = parseInteger("0", "--limit", 1, 10);
    ASSERT_FALSE(below.ok());
    EXPECT_TRUE(contains(below.error(), "--limit must be a whole number (1 to 10), got '0'")) << below.error();
    EXPECT_DOUBLE_EQ(*parseNumber("1e-3", "x"), 1e-3);
    for (const char* bad : {"nan", "inf", "-inf", "0x10", "1.5abc", "", "1e999"})
        EXPECT_FALSE(parseNumber(bad, "x").ok()) << bad;
}

TEST(StrictParse, RangesAndSampleReferences) {
    const auto r = parseIntRange("-6:5", "--dx");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->lo, -6);
    EXPECT_EQ(r->hi, 5);
    EXPECT_EQ(parseIntRange("4", "--dx")->hi, 4);
    for (const char* bad : {"1:2:3", "3:1", "1:", ":2", "1.5:2", "a:b"})
        EXPECT_FALSE(parseIntRange(bad, "--dx").ok()) << bad;
    const auto s = parseSampleRef("translated-fashion60:12");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->dataset, "translated-fashion60");
    EXPECT_EQ(s->index, 12);
    for (const char* bad : {"translated-fashion60:12abc", "d:1e3", "d:0x10", "d:5.9", "d:-1", ":3", "d"})
        EXPECT_FALSE(parseSampleRef(bad).ok()) << bad;
}

TEST(StrictParse, GumbelTemperaturesThatUnderflowAreRefusedEverywhere) {
    const auto tiny = parseSelectionRule("gumbel:1e-45");
    ASSERT_FALSE(tiny.ok());
    EXPECT_TRUE(contains(tiny.error(), "0.0001")) << tiny.error();
    EXPECT_FALSE(parseSelectionRule("gumbel:1e5").ok());
    EXPECT_FALSE(parseEvalRules("soft,gumbel:0").ok());
    EXPECT_DOUBLE_EQ(parseSelectionRule("gumbel:0.0001")->temperature, 1e-4);
    // The engine refuses it too, whatever the caller parsed.
    SelectionOptions o;
    o.rule = SelectionRule::Gumbel;
    o.temperature = 1e-45;
    Rng rng(1);
    EXPECT_THROW(select(torch::zeros({1, 4}), torch::zeros({1, 4, 2}), o, rng), c10::Error);
}

TEST(StrictParse, ARuleListedTwiceIsAnError) {
    const auto twice = parseEvalRules("sample,argmax,sample");
    ASSERT_FALSE(twice.ok());
    EXPECT_TRUE(contains(twice.error(), "'sample' is listed twice")) << twice.error();
    EXPECT_FALSE(parseEvalRules("gumbel:1,gumbel:1.0").ok());  // the same rule spelt twice
    EXPECT_EQ(parseEvalRules("sample,ksample:5")->size(), 2u);
}

TEST(Overflow, ScalarLabAndReinforceRefuseFiguresThatOverflow) {
    ScalarLabInput in;
    in.values = {1e308, 1e308, 10};
    in.probs = {0.5, 0.3, 0.2};
    const auto huge = runScalarLab(in);
    ASSERT_FALSE(huge.ok());
    EXPECT_TRUE(contains(huge.error(), "outside -1e9..1e9")) << huge.error();
    in.values = {1000, 2, 10};
    in.function = "exp";
    const auto overflow = runScalarLab(in);
    ASSERT_FALSE(overflow.ok());
    EXPECT_TRUE(contains(overflow.error(), "overflows")) << overflow.error();
    in.function = "square";
    EXPECT_TRUE(runScalarLab(in).ok());

    ScoreFunctionCheckInput r;
    r.probs = {0.5, 0.3, 0.2};
    r.rewards = {1e308, 1e308, 1e308};
    r.samples = 100;
    EXPECT_FALSE(checkScoreFunctionGradient(r).ok());
    r.rewards = {1, 2, 5};
    r.baselineDecay = std::nan("");
    EXPECT_FALSE(checkScoreFunctionGradient(r).ok());
}

TEST(Memory, ProbeSweepsAreBoundedByPixelsNotOnlyOffsets) {
    ProbeOptions p;
    p.canvas = 4096;
    p.objectSize = 100;
    p.dxMin = p.dyMin = -50;
    p.dxMax = p.dyMax = 50;
    const auto r = makeProbes(p, nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error(), "MB")) << r.error();
    p.canvas = 60;
    p.objectSize = 6;
    p.dxMin = p.dyMin = -6;
    p.dxMax = p.dyMax = 5;
    EXPECT_EQ(makeProbes(p, nullptr)->size(), 144u);
}

TEST(SaveTargets, ASymbolicLinkIsWrittenThroughAndStaysALink) {
    TempDir dir;
    writeRaw(dir.file("target.json"), "old");
    fs::create_symlink("target.json", dir.file("link.json"));
    ASSERT_TRUE(writeFileAtomic(dir.file("link.json"), "new").ok());
    EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
    EXPECT_EQ(bytesOf(dir.file("target.json")), "new");
    EXPECT_EQ(entriesIn(dir.path), 2);  // no temporary left behind
    fs::create_symlink("missing/x.json", dir.file("dangling.json"));
    const auto dangling = writeFileAtomic(dir.file("dangling.json"), "x");
    ASSERT_FALSE(dangling.ok());
    EXPECT_TRUE(contains(dangling.error(), "symbolic link")) << dangling.error();
}

TEST(SaveTargets, FifosDevicesAndFoldersAreRefusedAndLeftAsTheyWere) {
    TempDir dir;
    ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0);
    const auto fifo = writeFileAtomic(dir.file("fifo"), "x");
    ASSERT_FALSE(fifo.ok());
    EXPECT_TRUE(contains(fifo.error(), "is a FIFO, not a file")) << fifo.error();
    EXPECT_TRUE(fs::is_fifo(dir.file("fifo")));
    const auto device = writeFileAtomic("/dev/null", "x");
    ASSERT_FALSE(device.ok());
    EXPECT_TRUE(contains(device.error(), "character device")) << device.error();
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    const auto folder = writeFileAtomic(dir.path.string(), "x");
    ASSERT_FALSE(folder.ok());
    EXPECT_TRUE(contains(folder.error(), "is a folder")) << folder.error();
    // Reading a FIFO would block: refused without opening it.
    const auto read = readFile(dir.file("fifo"));
    ASSERT_FALSE(read.ok());
    EXPECT_TRUE(contains(read.error(), "FIFO")) << read.error();
    EXPECT_TRUE(contains(readFile(dir.path.string()).error(), "folder"));
}

TEST(SaveTargets, AReplacedFileKeepsItsPermissions) {
    TempDir dir;
    const auto path = dir.file("private.json");
    writeRaw(path, "old");
    ::chmod(path.c_str(), 0600);
    ASSERT_TRUE(writeFileAtomic(path, "new").ok());
    struct stat st {};
    ::stat(path.c_str(), &st);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(Faults, AFullDiskLeavesTheOldFileAndNoTemporary) {
    TempDir dir;
    const auto path = dir.file("trace.json");
    writeRaw(path, "old");
    // A child whose files may not grow past 1 KB stands in for a full disk.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{1024, 1024};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        const auto r = writeFileAtomic(path, std::string(64 * 1024, 'x'));
        ::_exit(!r.ok() && contains(r.error(), "cannot write") ? 0 : 1);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the write did not fail with a clear message";
    EXPECT_EQ(bytesOf(path), "old");
    EXPECT_EQ(entriesIn(dir.path), 1);
}

TEST(Faults, SigkillDuringACheckpointSaveLeavesThePreviousCheckpointIntact) {
    TempDir dir;
    const auto path = saveTinyPatch(dir, "model.pt", 1);
    torch::manual_seed(2);
    PatchConfig big = tinyPatchConfig();
    big.featureDim = 256;
    big.hidden = 512;  // a few MB, so that the kill often lands inside a write
    PatchClassifier net(big);
    const auto info = tinyPatchInfo(big);
    for (int round = 0; round < 3; ++round) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            for (;;) (void)saveCheckpoint(*net, nullptr, info, path);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(40 + 70 * round));
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
        // Whichever save completed last, the file under the name is whole, and it opens with the
        // sidecar beside it (a kill between the two renames would be named, not loaded wrongly).
        const auto bytes = readFile(path, std::size_t{1} << 30);
        ASSERT_TRUE(bytes.ok());
        EXPECT_TRUE(verifyZipArchive(*bytes, path).ok()) << "round " << round;
        const auto model = loadAttentionModel(path, test::testDevice());
        EXPECT_TRUE(model.ok() || contains(model.error(), "not the file its sidecar describes")) << model.error();
    }
}

TEST(Integrity, AFlippedByteInsideAWeightTensorIsFound) {
    TempDir dir;
    const auto path = saveTinyPatch(dir, "model.pt", 1);
    ASSERT_TRUE(loadSmall(path).ok());
    std::string bytes = bytesOf(path);
    for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0xFF);
    writeRaw(path, bytes);
    const auto flipped = loadSmall(path);
    ASSERT_FALSE(flipped.ok());
    EXPECT_TRUE(contains(flipped.error(), "fails its CRC-32 check")) << flipped.error();

    const auto whole = bytesOf(saveTinyPatch(dir, "model.pt", 1));
    writeRaw(path, whole.substr(0, whole.size() - 100));
    const auto cut = loadSmall(path);
    ASSERT_FALSE(cut.ok());
    EXPECT_TRUE(contains(cut.error(), "truncated")) << cut.error();
    writeRaw(path, "");
    EXPECT_TRUE(contains(loadSmall(path).error(), "0 bytes"));
}

TEST(Integrity, WeightsSwappedForAnotherFileDisagreeWithTheSidecar) {
    TempDir dir;
    const auto a = saveTinyPatch(dir, "a.pt", 1);
    const auto b = saveTinyPatch(dir, "b.pt", 2);
    fs::copy_file(b, a, fs::copy_options::overwrite_existing);
    const auto swapped = loadSmall(a);
    ASSERT_FALSE(swapped.ok());
    EXPECT_TRUE(contains(swapped.error(), "not the file its sidecar describes")) << swapped.error();
}

TEST(Integrity, SidecarNumbersAreReadStrictly) {
    TempDir dir;
    const auto pt = saveTinyPatch(dir, "m.pt", 1);
    const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases{
        {[](nlohmann::json& j) { j["config"]["image_size"] = 4294967356ULL; }, "'image_size' must be a whole number"},
        {[](nlohmann::json& j) { j["config"]["grid"] = 10.5; }, "'grid' must be a whole number"},
        {[](nlohmann::json& j) { j["config"]["hidden"] = 100000000; }, "'hidden' must be a whole number from 1 to 8192"},
        {[](nlohmann::json& j) { j["seed"] = -1; }, "'seed' must be a whole number >= 0"},
        {[](nlohmann::json& j) { j = nlohmann::json::array({1, 2}); }, "holds a JSON array"},
    };
    const auto original = bytesOf(sidecarPath(pt));
    for (const auto& [edit, expected] : cases) {
        writeRaw(sidecarPath(pt), original);
        rewriteSidecar(pt, edit);
        const auto model = loadAttentionModel(pt, test::testDevice());
        ASSERT_FALSE(model.ok()) << expected;
        EXPECT_TRUE(contains(model.error(), expected)) << model.error();
        EXPECT_EQ(model.error().find('\n'), std::string::npos) << model.error();
    }
    fs::create_directory(dir.file("folder.pt"));
    EXPECT_TRUE(contains(loadAttentionModel(dir.file("folder.pt"), test::testDevice()).error(), "is a folder"));
}

TEST(Integrity, TruncatedImagesOfEveryFormatAreRefused) {
    if (!readsEveryImageFormat()) GTEST_SKIP() << "built with SACCADE_OPENCV_CODECS=OFF: PNG only";
    TempDir dir;
    Image image;
    image.width = image.height = 12;
    image.channels = 1;
    for (int i = 0; i < 144; ++i) image.pixels.push_back(static_cast<std::uint8_t>(i));
    ASSERT_TRUE(saveImagePng(image, dir.file("a.png")).ok());
    const std::string png = bytesOf(dir.file("a.png"));
    const std::string jpeg("\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00\x43\x00\x06\x04\x05\x06\x05\x04\x06\x06\x05\x06\x07\x07\x06\x08\x0a\x10\x0a\x0a\x09\x09\x0a\x14\x0e\x0f\x0c\x10\x17\x14\x18\x18\x17\x14\x16\x16\x1a\x1d\x25\x1f\x1a\x1b\x23\x1c\x16\x16\x20\x2c\x20\x23\x26\x27\x29\x2a\x29\x19\x1f\x2d\x30\x2d\x28\x30\x25\x28\x29\x28\xff\xc0\x00\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00\xff\xc4\x00\x14\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\xff\xc4\x00\x17\x10\x00\x03\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x18\x64\xa2\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00\x17\x98\xf2\x7f\xff\xd9", 165);
    const std::string tiff("\x49\x49\x2a\x00\x48\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x24\x24\x24\x24\x24\x24\x24\x24\x48\x48\x48\x48\x48\x48\x48\x48\x6d\x6d\x6d\x6d\x6d\x6d\x6d\x6d\x91\x91\x91\x91\x91\x91\x91\x91\xb6\xb6\xb6\xb6\xb6\xb6\xb6\xb6\xda\xda\xda\xda\xda\xda\xda\xda\xff\xff\xff\xff\xff\xff\xff\xff\x0d\x00\x00\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x01\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x02\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x03\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x06\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x0a\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x11\x01\x04\x00\x01\x00\x00\x00\x08\x00\x00\x00\x12\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x15\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x16\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x17\x01\x04\x00\x01\x00\x00\x00\x40\x00\x00\x00\x1c\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x29\x01\x03\x00\x02\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00", 234);
    // A 4x4 8-bit grey BMP: headers, a 256-entry palette, four padded rows.
    std::string bmp = "BM";
    auto le = [&bmp](std::uint32_t v, int n) {
        for (int i = 0; i < n; ++i) bmp += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    const std::uint32_t offset = 14 + 40 + 1024;
    le(offset + 16, 4), le(0, 4), le(offset, 4);
    le(40, 4), le(4, 4), le(4, 4), le(1, 2), le(8, 2), le(0, 4), le(16, 4), le(0, 4), le(0, 4), le(256, 4), le(0, 4);
    for (int i = 0; i < 256; ++i) le(static_cast<std::uint32_t>(i * 0x010101), 4);
    bmp += std::string(16, '\x80');
    for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
             {"png", png}, {"jpeg", jpeg}, {"tiff", tiff}, {"bmp", bmp}}) {
        const auto whole = decodeImage(bytes, name);
        ASSERT_TRUE(whole.ok()) << name << ": " << whole.error();
        const auto cut = decodeImage(bytes.substr(0, bytes.size() * 2 / 3), name);
        ASSERT_FALSE(cut.ok()) << name;
        EXPECT_TRUE(contains(cut.error(), "truncated")) << cut.error();
    }
    std::string damaged = png;
    damaged[png.size() / 2] = static_cast<char>(damaged[png.size() / 2] ^ 0x55);
    EXPECT_TRUE(contains(decodeImage(damaged, "png").error(), "CRC")) << decodeImage(damaged, "png").error();
}
