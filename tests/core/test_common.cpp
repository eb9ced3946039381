#include <gtest/gtest.h>

#include <filesystem>

#include "common/atomic_file.h"
#include "common/display_text.h"
#include "common/result.h"

using namespace saccade;
namespace fs = std::filesystem;

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
    const fs::path dir = fs::temp_directory_path() / ("saccade-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto path = (dir / "out.txt").string();
    ASSERT_TRUE(writeFileAtomic(path, "first").ok());
    ASSERT_TRUE(writeFileAtomic(path, "second").ok());
    EXPECT_EQ(*readFile(path), "second");
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1);
    const auto tooBig = readFile(path, 3);
    ASSERT_FALSE(tooBig.ok());
    EXPECT_NE(tooBig.error().find("over the limit"), std::string::npos);
    fs::remove_all(dir);
}

TEST(AtomicFile, ErrorsNameThePath) {
    const auto r = writeFileAtomic("/nonexistent-dir/x.json", "x");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("/nonexistent-dir/x.json"), std::string::npos) << r.error();
    const auto missing = readFile("/nonexistent-dir/y.json");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("No such file"), std::string::npos) << missing.error();
}

TEST(Result, ValueOrError) {
    Result<int> good = 3;
    Result<int> bad = Error{"nope"};
    EXPECT_TRUE(good.ok());
    EXPECT_EQ(*good, 3);
    EXPECT_TRUE(good.error().empty());
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), "nope");
    EXPECT_THROW(bad.value(), std::logic_error);
}

#include <torch/torch.h>

#include "common/device.h"

TEST(Device, ResolvesSpellingsAndExplainsMissingCuda) {
    EXPECT_TRUE(resolveDevice("cpu")->is_cpu());
    EXPECT_NE(resolveDevice("gpu").error().find("unknown device 'gpu'"), std::string::npos);
    if (torch::cuda::is_available()) {
        EXPECT_TRUE(resolveDevice("auto")->is_cuda());
    } else {
        EXPECT_TRUE(resolveDevice("auto")->is_cpu());
        EXPECT_NE(resolveDevice("cuda").error().find("CUDA is not available"), std::string::npos);
    }
}

TEST(DisplayText, RefusesControlsOverridesBadUtf8AndLengthNamingWhere) {
    EXPECT_EQ(*checkDisplayText("3 March 2001, caf\xc3\xa9 \xe6\x97\xa5 <b>&", "t", 100), "3 March 2001, caf\xc3\xa9 \xe6\x97\xa5 <b>&");
    const std::pair<std::string, std::string> refused[] = {
        {"3\x01 March", "the control character U+0001 at byte 1"},
        {"ab\x1b[31m", "U+001B at byte 2"},
        {"x\x7f", "U+007F at byte 1"},
        {"\xc2\x9b", "U+009B at byte 0"},                 // C1 CSI
        {"ab\xe2\x80\xae", "U+202E at byte 2"},          // right-to-left override
        {"\xe2\x81\xa6x", "U+2066 at byte 0"},           // left-to-right isolate
        {"a\nb", "U+000A at byte 1"},
        {"\xc0\xaf", "not valid UTF-8 (at byte 0)"},     // overlong '/'
        {"ab\xe6\x97", "not valid UTF-8 (at byte 2)"},   // truncated
        {"\xed\xa0\x80", "not valid UTF-8 (at byte 0)"}, // a surrogate
        {std::string(11, 'a'), "is 11 bytes long (at most 10)"},
    };
    for (const auto& [text, expected] : refused) {
        auto r = checkDisplayText(text, "the text", 10);
        ASSERT_FALSE(r.ok()) << expected;
        EXPECT_NE(r.error().find(expected), std::string::npos) << r.error();
    }
    EXPECT_TRUE(checkDisplayText("a\nb\tc", "t", 10, /*allowNewlines=*/true).ok());
    EXPECT_NE(checkDisplayText("a\xe2\x80\xa8" "b", "t", 10).error().find("the line separator U+2028 at byte 1"),
              std::string::npos);
}

// Text that must be shown though it came from outside: every control character, direction
// override, line separator and stray byte visible as an escape, cut at a character boundary.
TEST(DisplayText, EscapesWhatItCannotShowAndCutsLongText) {
    EXPECT_EQ(escapeDisplayText("caf\xc3\xa9 ok", 100), "caf\xc3\xa9 ok");
    EXPECT_EQ(escapeDisplayText("a\x1b[31mb\xe2\x80\xae" "c\xff" "d\ne\xe2\x80\xa8", 100),
              "a\\x1B[31mb\\u202Ec\\xFFd\\x0Ae\\u2028");
    const std::string cut = escapeDisplayText(std::string(10, 'x') + "\xc3\xa9\xc3\xa9", 11);
    EXPECT_EQ(cut, std::string(10, 'x') + "... (14 bytes in all)");  // not half an é
}
