#include "doctor/doctor.h"

#include "common/fast_math.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <dlfcn.h>

#include <nlohmann/json.hpp>
#include <opencv2/core/version.hpp>
#include <torch/torch.h>
#include <torch/version.h>

#include "common/c10d_backends.h"
#include "common/matmul_rate.h"
#include "common/samples_dir.h"
#include "data/idx_reader.h"

namespace saccade {

namespace {

const char* kFashionDefault = "/usr/share/datasets/fashion-mnist";
const char* kFashionFiles[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                               "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};

std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}


// The BLAS this process loaded, read from its memory map (the dynamic linker resolved the
// libblas.so.3 alternative, so the path tells OpenBLAS from the reference implementation).
std::string loadedBlas() {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const auto slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        const std::string file = std::filesystem::path(path).filename().string();
        if (file.rfind("libblas", 0) == 0 || file.rfind("libopenblas", 0) == 0 ||
            file.rfind("libmkl", 0) == 0 || file.rfind("libblis", 0) == 0)
            return path;
    }
    return {};
}

// OpenBLAS's kernel set in use ("Haswell", "SkylakeX", ...): its own choice for this processor,
// or OPENBLAS_CORETYPE's. Empty for another BLAS.
std::string openblasKernels() {
    using CoreName = char* (*)();
    const auto name = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    const char* n = name ? name() : nullptr;
    return n ? n : "";
}

std::string blasName(const std::string& path) {
    if (path.empty()) return "none found in the process (statically linked or unknown)";
    if (path.find("openblas-pthread") != std::string::npos) return "OpenBLAS (pthread)";
    if (path.find("openblas-openmp") != std::string::npos) return "OpenBLAS (OpenMP)";
    if (path.find("openblas-serial") != std::string::npos) return "OpenBLAS (serial)";
    if (path.find("openblas") != std::string::npos) return "OpenBLAS";
    if (path.find("mkl") != std::string::npos) return "Intel MKL";
    if (path.find("blis") != std::string::npos) return "BLIS";
    if (path.find("/blas/") != std::string::npos) return "reference BLAS (netlib, slow)";
    return "unknown BLAS";
}

std::string compilerName() {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "g++ " __VERSION__;
#else
    return "unknown";
#endif
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            if (const auto colon = line.find(':'); colon != std::string::npos && colon + 2 <= line.size())
                return line.substr(colon + 2);
    return "unknown";
}

std::string saccadeKernels() {
    switch (fast::level()) {
    case fast::Level::Avx512: return "avx512";
    case fast::Level::Avx2: return "avx2";
    case fast::Level::Plain: break;
    }
    return "plain";
}

}  // namespace

MachineSummary describeMachine() {
    MachineSummary m;
    m.cpuModel = cpuModel();
    m.blasName = blasName(loadedBlas());
    m.blasKernels = openblasKernels();
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE")) m.blasCoreType = forced;
    m.saccadeKernels = saccadeKernels();
    m.hardwareThreads = static_cast<int>(std::thread::hardware_concurrency());
    m.torchVersion = TORCH_VERSION;
    return m;
}

DoctorReport runDoctor(const DoctorOptions& options) {
    DoctorReport r;
    r.cpuModel = cpuModel();
    r.saccadeKernels = saccadeKernels();
    r.blasLibrary = loadedBlas();
    r.blasName = blasName(r.blasLibrary);
    r.blasKernels = openblasKernels();
    if (const char* forced = std::getenv("OPENBLAS_CORETYPE")) r.blasCoreType = forced;
    r.matmulSize = std::max(16, options.matmulSize);
    try {
        r.matmulGflops = measureMatmulGflops(r.matmulSize, std::max(1, options.matmulRepeats));
    } catch (const std::exception& e) {
        r.warnings.push_back({std::string("matrix product failed: ") + e.what(), "reinstall libtorch-dev"});
    }
    r.intraOpThreads = at::get_num_threads();
    r.interOpThreads = at::get_num_interop_threads();
    r.hardwareThreads = static_cast<int>(std::thread::hardware_concurrency());
    // What OpenMP read: the programs answer its getenv with PASSIVE where the variable is unset.
    r.ompWaitPolicy = envOr("OMP_WAIT_POLICY", "(unset)");
    r.ompNumThreads = envOr("OMP_NUM_THREADS", "(unset)");

    // A CUDA build of LibTorch on a machine without a GPU says so (scripts/check-cuda-build.sh).
    r.devices.push_back({"cpu", std::to_string(r.hardwareThreads) + " hardware threads" +
                                    (libTorchHasCuda() && !torch::cuda::is_available() ? "; LibTorch has CUDA, no GPU answers" : "")});
    if (torch::cuda::is_available()) {
        const auto count = torch::cuda::device_count();
        for (size_t i = 0; i < count; ++i)
            r.devices.push_back({"cuda:" + std::to_string(i), "CUDA device"});
    }
    for (const auto& b : checkTrainingBackends()) {
        r.trainingBackends.push_back({b.name, b.available, b.detail});
        if (b.name == "gloo" && !b.available)
            r.warnings.push_back({"data-parallel training cannot run: Gloo " + b.detail,
                                  "reinstall libtorch-dev and libgloo-dev (scripts/install-deps.sh)"});
    }
    r.torchVersion = TORCH_VERSION;
    r.opencvVersion = CV_VERSION;
    r.compiler = compilerName();

    r.fashionMnistDir = options.fashionMnistDir.empty()
                            ? envOr("SACCADE_FASHION_MNIST", kFashionDefault)
                            : options.fashionMnistDir;
    for (const char* f : kFashionFiles) {
        if (!std::filesystem::exists(std::filesystem::path(r.fashionMnistDir) / f))
            r.fashionMnistMissing.push_back(f);
    }
    r.fashionMnistPresent = r.fashionMnistMissing.empty();
    // Present is not enough: each file is read whole (the gzip CRC and the IDX sizes checked),
    // so a byte-flipped or cut download is named here rather than at the first training step.
    if (r.fashionMnistPresent) {
        for (const char* f : kFashionFiles) {
            const auto path = (std::filesystem::path(r.fashionMnistDir) / f).string();
            const bool images = std::string(f).find("images") != std::string::npos;
            if (auto read = readIdxFile(path, images ? 3 : 1); !read) r.fashionMnistDamaged.push_back(read.error());
        }
    }

    r.samplesDir = findSamplesDir();

    if (r.blasName.find("reference") != std::string::npos || (r.matmulGflops > 0 && r.matmulGflops < kDoctorSlowGflops)) {
        std::ostringstream msg;
        msg.precision(3);
        msg << "matrix products are slow (" << r.matmulGflops << " GFLOP/s with " << r.blasName
            << "); training and benchmarks will be about 10x slower than they should";
        r.warnings.push_back({msg.str(),
                              "sudo apt-get install libopenblas0-pthread  (it takes over the "
                              "libblas.so.3 alternative; check with: update-alternatives --display "
                              "libblas.so.3-x86_64-linux-gnu)"});
    }
    for (const auto& damage : r.fashionMnistDamaged)
        r.warnings.push_back({"Fashion-MNIST is damaged: " + damage,
                              "sudo apt-get install --reinstall dataset-fashion-mnist  (or replace the file)"});
    if (!r.fashionMnistPresent) {
        r.warnings.push_back({"Fashion-MNIST not found in " + r.fashionMnistDir,
                              "sudo apt-get install dataset-fashion-mnist  (or set "
                              "SACCADE_FASHION_MNIST to a folder with the four IDX .gz files)"});
    }
    if (r.samplesDir.empty()) {
        r.warnings.push_back({"the bundled models (samples/models) were not found",
                              "reinstall Saccade, or set SACCADE_SAMPLES_DIR to the folder that "
                              "holds models/"});
    }
    if (r.ompWaitPolicy == "(unset)" && r.hardwareThreads <= 2) {
        r.warnings.push_back({"OMP_WAIT_POLICY is unset on a machine with " +
                                  std::to_string(r.hardwareThreads) +
                                  " hardware threads: idle OpenMP threads busy-wait and slow the "
                                  "GUI and other jobs",
                              "export OMP_WAIT_POLICY=PASSIVE"});
    }
    return r;
}

std::string doctorToText(const DoctorReport& r) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(1);
    out << "CPU            " << r.cpuModel << " (Saccade's kernels: " << r.saccadeKernels << ")\n";
    out << "BLAS           " << r.blasName << "\n";
    out << "  library      " << (r.blasLibrary.empty() ? "-" : r.blasLibrary) << "\n";
    if (!r.blasKernels.empty()) {
        out << "  kernels      " << r.blasKernels;
        if (!r.blasCoreType.empty()) out << " (OPENBLAS_CORETYPE=" << r.blasCoreType << " chose them)";
        out << "\n";
    }
    out << "  measured     " << r.matmulGflops << " GFLOP/s (float32 " << r.matmulSize << "x"
        << r.matmulSize << " matrix product, median)\n";
    out << "Threads        intra-op " << r.intraOpThreads << ", inter-op " << r.interOpThreads
        << ", hardware " << r.hardwareThreads << "\n";
    out << "  OpenMP       OMP_NUM_THREADS=" << r.ompNumThreads
        << ", OMP_WAIT_POLICY=" << r.ompWaitPolicy << "\n";
    out << "Devices       ";
    for (const auto& d : r.devices) out << " " << d.name << " (" << d.description << ")";
    out << "\n";
    for (std::size_t i = 0; i < r.trainingBackends.size(); ++i) {
        const auto& b = r.trainingBackends[i];
        out << (i == 0 ? "Data-parallel  " : "               ") << b.name << ": " << (b.available ? "" : "no; ")
            << b.detail << "\n";
    }
    out << "Libraries      LibTorch " << r.torchVersion << ", OpenCV " << r.opencvVersion << ", "
        << r.compiler << "\n";
    out << "Fashion-MNIST  "
        << (!r.fashionMnistPresent ? "MISSING" : r.fashionMnistDamaged.empty() ? "present, verified" : "DAMAGED") << " in "
        << r.fashionMnistDir << "\n";
    out << "Bundled models " << (r.samplesDir.empty() ? "MISSING" : r.samplesDir + "/models") << "\n";
    if (r.warnings.empty()) {
        out << "\nNo problems found.\n";
    } else {
        for (const auto& w : r.warnings) {
            out << "\nWARNING: " << w.message << "\n";
            out << "  fix: " << w.fix << "\n";
        }
    }
    return out.str();
}

std::string doctorToJson(const DoctorReport& r, int indent) {
    nlohmann::json j;
    j["cpu"] = {{"model", r.cpuModel}, {"saccade_kernels", r.saccadeKernels}};
    j["blas"] = {{"name", r.blasName}, {"library", r.blasLibrary}, {"kernels", r.blasKernels},
                 {"OPENBLAS_CORETYPE", r.blasCoreType},
                 {"gflops", r.matmulGflops}, {"matmul_size", r.matmulSize}};
    j["threads"] = {{"intra_op", r.intraOpThreads},
                    {"inter_op", r.interOpThreads},
                    {"hardware", r.hardwareThreads},
                    {"OMP_NUM_THREADS", r.ompNumThreads},
                    {"OMP_WAIT_POLICY", r.ompWaitPolicy}};
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : r.devices) devices.push_back({{"name", d.name}, {"description", d.description}});
    j["devices"] = devices;
    nlohmann::json backends = nlohmann::json::array();
    for (const auto& b : r.trainingBackends)
        backends.push_back({{"name", b.name}, {"available", b.available}, {"detail", b.detail}});
    j["training_backends"] = backends;
    j["versions"] = {{"libtorch", r.torchVersion}, {"opencv", r.opencvVersion}, {"compiler", r.compiler}};
    j["fashion_mnist"] = {{"present", r.fashionMnistPresent},
                          {"dir", r.fashionMnistDir},
                          {"missing", r.fashionMnistMissing},
                          {"damaged", r.fashionMnistDamaged}};
    j["samples_dir"] = r.samplesDir;
    nlohmann::json warnings = nlohmann::json::array();
    for (const auto& w : r.warnings) warnings.push_back({{"message", w.message}, {"fix", w.fix}});
    j["warnings"] = warnings;
    return j.dump(indent);
}

}  // namespace saccade
