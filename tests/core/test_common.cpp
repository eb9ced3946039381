#include <gtest/gtest.h>

#include <filesystem>

#include "common/atomic_file.h"
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
