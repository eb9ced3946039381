#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "doctor/doctor.h"

using namespace saccade;

TEST(Doctor, ReportsMeasuredSpeedThreadsDevicesAndVersions) {
    DoctorOptions o;
    o.matmulSize = 128;
    o.matmulRepeats = 3;
    const auto r = runDoctor(o);
    EXPECT_GT(r.matmulGflops, 0.0);
    EXPECT_EQ(r.matmulSize, 128);
    EXPECT_GE(r.intraOpThreads, 1);
    ASSERT_FALSE(r.devices.empty());
    EXPECT_EQ(r.devices[0].name, "cpu");
    EXPECT_FALSE(r.torchVersion.empty());
    EXPECT_EQ(r.opencvVersion.rfind("4.", 0), 0u);
    // Debian's LibTorch loads libblas.so.3 dynamically; the doctor must find which one.
    EXPECT_FALSE(r.blasLibrary.empty());
    const auto text = doctorToText(r);
    EXPECT_NE(text.find("GFLOP/s"), std::string::npos);
    EXPECT_NE(text.find(r.blasName), std::string::npos);
    EXPECT_NE(doctorToJson(r).find("\"gflops\""), std::string::npos);
    // OpenBLAS names its kernel set, and says when OPENBLAS_CORETYPE chose it.
    if (r.blasName.rfind("OpenBLAS", 0) == 0) {
        EXPECT_FALSE(r.blasKernels.empty());
        EXPECT_NE(text.find("  kernels      " + r.blasKernels), std::string::npos) << text;
    }
    const char* coreType = std::getenv("OPENBLAS_CORETYPE");
    EXPECT_EQ(r.blasCoreType, coreType ? coreType : "");
    if (coreType && !r.blasKernels.empty()) {
        EXPECT_NE(text.find("(OPENBLAS_CORETYPE=" + std::string(coreType) + " chose them)"), std::string::npos) << text;
    }
    // The bundled models: from a build tree, samples/ above the executable or the source tree's.
    EXPECT_FALSE(r.samplesDir.empty());
    EXPECT_NE(text.find("Bundled models " + r.samplesDir + "/models\n"), std::string::npos);
    EXPECT_NE(doctorToJson(r).find("\"samples_dir\""), std::string::npos);
    // Data-parallel training: Gloo really all-reduces here; NCCL needs a CUDA LibTorch.
    ASSERT_EQ(r.trainingBackends.size(), 2u);
    EXPECT_EQ(r.trainingBackends[0].name, "gloo");
    EXPECT_TRUE(r.trainingBackends[0].available) << r.trainingBackends[0].detail;
    EXPECT_EQ(r.trainingBackends[1].name, "nccl");
    EXPECT_FALSE(r.trainingBackends[1].available);
    EXPECT_NE(text.find("Data-parallel  gloo: works"), std::string::npos) << text;
}

TEST(Doctor, MissingFashionMnistIsAWarningWithTheFix) {
    DoctorOptions o;
    o.matmulSize = 32;
    o.matmulRepeats = 1;
    o.fashionMnistDir = "/nonexistent/fashion";
    const auto r = runDoctor(o);
    EXPECT_FALSE(r.fashionMnistPresent);
    EXPECT_EQ(r.fashionMnistMissing.size(), 4u);
    bool found = false;
    for (const auto& w : r.warnings)
        if (w.message.find("/nonexistent/fashion") != std::string::npos) {
            found = true;
            EXPECT_NE(w.fix.find("apt-get install dataset-fashion-mnist"), std::string::npos);
        }
    EXPECT_TRUE(found);
}

TEST(Doctor, FindsTheDebianFashionMnistWhenInstalled) {
    if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz"))
        GTEST_SKIP() << "dataset-fashion-mnist is not installed";
    DoctorOptions o;
    o.matmulSize = 32;
    o.matmulRepeats = 1;
    o.fashionMnistDir = "/usr/share/datasets/fashion-mnist";
    EXPECT_TRUE(runDoctor(o).fashionMnistPresent);
}
