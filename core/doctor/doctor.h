#pragma once
// `saccade doctor`: what this machine gives the engine (BLAS, measured speed, threads, devices,
// library versions, data) and what to fix when something is slow or missing.

#include <string>
#include <vector>

namespace saccade {

struct DoctorOptions {
    int matmulSize = 512;      ///< n of the n x n x n float matrix product that is timed
    int matmulRepeats = 7;     ///< timed repeats; the median is reported
    std::string fashionMnistDir;  ///< empty: $SACCADE_FASHION_MNIST or the Debian package's folder
};

struct DoctorDevice {
    std::string name;  ///< "cpu", "cuda:0", ...
    std::string description;
};

/// A backend for data-parallel training (c10d).
struct DoctorBackend {
    std::string name;
    bool available = false;
    std::string detail;
};

/// Something slow or missing, and the command or setting that fixes it.
struct DoctorWarning {
    std::string message;
    std::string fix;
};

struct DoctorReport {
    std::string cpuModel;     ///< /proc/cpuinfo's "model name", or "unknown"
    std::string saccadeKernels;  ///< Saccade's own kernels: "avx512", "avx2" or "plain" (SACCADE_KERNELS caps it)
    std::string blasLibrary;  ///< resolved path of the BLAS the process loaded, or empty
    std::string blasName;     ///< "OpenBLAS (pthread)", "reference BLAS (netlib)", ...
    std::string blasKernels;   ///< OpenBLAS's kernels in use ("SkylakeX", "Haswell", ...), or empty
    std::string blasCoreType;  ///< OPENBLAS_CORETYPE when set (it overrides OpenBLAS's own choice)
    double matmulGflops = 0;  ///< median measured float32 GFLOP/s on the CPU
    int matmulSize = 0;
    int intraOpThreads = 0;
    int interOpThreads = 0;
    int hardwareThreads = 0;
    std::string ompWaitPolicy;  ///< OMP_WAIT_POLICY as OpenMP read it (the programs read PASSIVE where it is unset), or "(unset)"
    std::string ompNumThreads;  ///< $OMP_NUM_THREADS, or "(unset)"
    std::vector<DoctorDevice> devices;
    std::vector<DoctorBackend> trainingBackends;  ///< c10d backends for --world-size > 1
    std::string torchVersion;
    std::string opencvVersion;
    std::string compiler;
    bool fashionMnistPresent = false;
    std::string fashionMnistDir;
    std::vector<std::string> fashionMnistMissing;  ///< files expected but not found
    std::vector<std::string> fashionMnistDamaged;  ///< one message per file that does not read whole
    std::string samplesDir;  ///< where the bundled models were found (findSamplesDir), or empty
    std::vector<DoctorWarning> warnings;
};

/// What a speed figure depends on: the processor, the BLAS and its kernels, Saccade's own kernels.
struct MachineSummary {
    std::string cpuModel;        ///< /proc/cpuinfo's "model name" ("AMD EPYC", "Intel(R) Xeon(R) ..."), or "unknown"
    std::string blasName;        ///< as DoctorReport::blasName
    std::string blasKernels;     ///< as DoctorReport::blasKernels
    std::string blasCoreType;    ///< as DoctorReport::blasCoreType
    std::string saccadeKernels;  ///< the fused loops' and packed products' level: "avx512", "avx2" or "plain"
    int hardwareThreads = 0;
    std::string torchVersion;
};

/// The machine as it runs now (no timing: instant).
MachineSummary describeMachine();

/// GFLOP/s below which the doctor warns that the BLAS is the slow reference one.
constexpr double kDoctorSlowGflops = 15.0;

/// Inspects the process and machine and times a matrix product (about a second).
/// Thread-safe; never throws.
DoctorReport runDoctor(const DoctorOptions& options = {});

/// A human-readable multi-line report, warnings last.
std::string doctorToText(const DoctorReport& report);
/// The report as a JSON object.
std::string doctorToJson(const DoctorReport& report, int indent = 2);

}  // namespace saccade
