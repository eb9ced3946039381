#include "common/runtime.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace saccade {

void setComputeThreads(int n) {
    if (n <= 0) return;
    at::set_num_threads(n);
    // OpenBLAS keeps its own pool (one thread per core), whose idle threads spin in sched_yield
    // beside LibTorch's: give it the same count when it is the BLAS in use.
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(n);
}

int computeThreads() { return at::get_num_threads(); }

const char* environmentValue(const char* name) {
    if (name == nullptr) return nullptr;
    const std::size_t length = std::strlen(name);
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
    // The one variable the programs answer for when it is unset: OpenMP's idle threads sleep.
    if (std::strcmp(name, "OMP_WAIT_POLICY") == 0) return "PASSIVE";
    return nullptr;
}

namespace {

// What libgomp prints for omp_display_env(verbose): its settings, among them GOMP_SPINCOUNT.
std::string openMpSettings() {
    using Display = void (*)(int);
    auto* display = reinterpret_cast<Display>(::dlsym(RTLD_DEFAULT, "omp_display_env"));
    int fds[2];
    if (display == nullptr || ::pipe(fds) != 0) return {};
    std::fflush(stderr);
    const int saved = ::dup(STDERR_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    display(1);  // a few kilobytes: the pipe holds them
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    ::close(fds[1]);
    std::string out;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, std::size_t(n));
    ::close(fds[0]);
    return out;
}

}  // namespace

void restartUnlessOpenMpWaitsPassively(char** argv) {
    // A wait policy or spin count the user set is what libgomp read, either way: kept.
    for (char** e = environ; e != nullptr && *e != nullptr; ++e)
        if (std::strncmp(*e, "OMP_WAIT_POLICY=", 16) == 0 || std::strncmp(*e, "GOMP_SPINCOUNT=", 15) == 0) return;
    const std::string settings = openMpSettings();
    if (settings.empty() || settings.find("GOMP_SPINCOUNT = '0'") != std::string::npos) return;
    if (settings.find("GOMP_SPINCOUNT") == std::string::npos) return;  // not libgomp's report
    if (::setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
    ::execv("/proc/self/exe", argv);
}

void chooseBlasKernelsForTheProcessor(char** argv) {
    if (::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice, or an earlier start's
    using CoreName = char* (*)();
    auto* coreName = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
    const char* core = coreName != nullptr ? coreName() : nullptr;
    if (core == nullptr || std::strcmp(core, "Prescott") != 0) return;
    const char* kernels = nullptr;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd"))
        kernels = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        kernels = "Haswell";
    // Set in the environment too: child processes (bench all's, the PyTorch references) inherit it.
    if (kernels == nullptr || ::setenv("OPENBLAS_CORETYPE", kernels, 1) != 0) return;
    // A DYNAMIC_ARCH OpenBLAS exports the pair that chooses its kernel table: forget the choice,
    // choose again (it reads OPENBLAS_CORETYPE). Nothing has called BLAS yet, and the table is
    // read at every call, so the change is whole.
    using Step = void (*)();
    auto* forget = reinterpret_cast<Step>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
    auto* choose = reinterpret_cast<Step>(::dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
    if (forget != nullptr && choose != nullptr) {
        forget();
        choose();
        const char* now = coreName();
        if (now != nullptr && std::strcmp(now, "Prescott") != 0) return;
    }
    ::execv("/proc/self/exe", argv);
    ::unsetenv("OPENBLAS_CORETYPE");  // the new start failed: this one goes on as it was
}

void tuneAllocator() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

namespace {
// Written on the main thread, read in a signal handler: fixed buffers, no allocation there.
char g_activity[401] = "";
char g_prefix[201] = "saccade";

void copyInto(char* buffer, std::size_t size, const std::string& text) {
    const std::size_t n = std::min(text.size(), size - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
}

extern "C" void onInterruptSignal(int signal) {
    const auto say = [](const char* text) { (void)!::write(STDERR_FILENO, text, std::strlen(text)); };
    say(g_prefix);
    say(": interrupted");
    if (g_activity[0]) {
        say(" while ");
        say(g_activity);
    }
    say("\n");
    ::_exit(128 + signal);
}
}  // namespace

void setActivity(const std::string& what) { copyInto(g_activity, sizeof g_activity, what); }

void reportInterruptions(const std::string& prefix) {
    copyInto(g_prefix, sizeof g_prefix, prefix);
    std::signal(SIGINT, onInterruptSignal);
    std::signal(SIGTERM, onInterruptSignal);
}

}  // namespace saccade
