// saccade-cli bench train: training images/s with 1, 2, ... data-parallel processes on this
// machine, one thread each, every rank a real `saccade-cli train` joined over loopback.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "child_process.h"
#include "models/model_family.h"
#include "commands.h"
#include "common/parse.h"
#include "strict_options.h"

namespace saccade::cli {

namespace {

/// A loopback port nobody listens on now (the kernel's choice).
int freeLoopbackPort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

struct BenchTrainArgs {
    std::string worldSizes = "1,2", family = "patch", dataset;
    std::int64_t iterations = 40;
    int batch = 64;
    bool json = false;
};

/// Runs one group of `world` ranks; rank 0's JSON summary, or an error.
Result<nlohmann::json> runGroup(const BenchTrainArgs& a, int world, const std::filesystem::path& dir) {
    const int port = freeLoopbackPort();
    if (port == 0) return Error{"no free loopback port for the group"};
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::vector<std::pair<std::string, std::string>> env{
        {"OMP_NUM_THREADS", "1"}, {"OPENBLAS_NUM_THREADS", "1"}, {"OMP_WAIT_POLICY", "PASSIVE"}};
    std::vector<ChildProcess> ranks;
    for (int r = 0; r < world; ++r) {
        std::vector<std::string> argv{self, "--threads", "1", "train", a.family,
                                      "--iterations", std::to_string(a.iterations), "--batch", std::to_string(a.batch),
                                      "--eval-every", std::to_string(a.iterations),
                                      "--out", (dir / ("world" + std::to_string(world) + ".pt")).string(), "--json",
                                      "--world-size", std::to_string(world), "--rank", std::to_string(r),
                                      "--master-port", std::to_string(port), "--group-timeout", "300"};
        if (!a.dataset.empty()) argv.insert(argv.end(), {"--" + findFamily(a.family)->datasetKey, a.dataset});
        auto child = startChild(argv, env, r == 0 ? ChildOutput::Capture : ChildOutput::Discard,
                                r == 0 ? ChildOutput::Inherit : ChildOutput::Discard);
        if (!child) {
            for (auto& started : ranks) killChild(started);
            return Error{child.error()};
        }
        ranks.push_back(*child);
    }
    auto [status, output] = finishChild(ranks[0]);
    bool othersOk = true;
    for (std::size_t r = 1; r < ranks.size(); ++r) {
        if (status != 0) killChild(ranks[r]);  // rank 0 is gone: do not wait out their timeout
        else othersOk = finishChild(ranks[r]).first == 0 && othersOk;
    }
    if (status != 0) return Error{"rank 0 of " + std::to_string(world) + " failed (its message is above)"};
    if (!othersOk) return Error{"a rank of " + std::to_string(world) + " failed"};
    auto j = nlohmann::json::parse(output, nullptr, false);
    if (j.is_discarded() || !j.contains("images_per_s")) return Error{"rank 0 printed no summary"};
    return j;
}

}  // namespace

void addBenchTrain(CLI::App& bench, int& exitCode) {
    auto a = std::make_shared<BenchTrainArgs>();
    auto* cmd = bench.add_subcommand(
        "train", "training images/s with 1, 2, ... data-parallel processes (one thread each) on this machine");
    cmd->add_option("--world-size", a->worldSizes, "process counts to time, e.g. 1,2")->capture_default_str();
    std::vector<std::string> trainable;  // every registered family Saccade trains
    for (const ModelFamily* f : modelFamilies())
        if (f->train) trainable.push_back(f->name);
    std::string names;
    for (const auto& name : trainable) names += (names.empty() ? "" : ", ") + name;
    cmd->add_option("--family", a->family, "the family to train: " + names)->capture_default_str()
        ->check(CLI::IsMember(trainable));
    cmd->add_option("--dataset", a->dataset, "default: the family's training default");
    cmd->add_option("--iterations", a->iterations, "training iterations per run")->capture_default_str()
        ->check(wholeNumberIn(5, 1000000));
    cmd->add_option("--batch", a->batch, "global batch (divided among the processes)")->capture_default_str()
        ->check(wholeNumberIn(1, 65536));
    cmd->add_flag("--json", a->json, "print one JSON object");
    cmd->callback([a, &exitCode] {
        if (a->worldSizes.find_first_not_of(" ") == std::string::npos) {
            exitCode = badInput("bench train", "--world-size needs process counts, e.g. 1,2");
            return;
        }
        auto list = parseNumberList(a->worldSizes, "--world-size");
        if (!list) { exitCode = badInput("bench train", list.error()); return; }
        std::vector<int> worlds;
        for (double w : *list) {
            if (w != std::floor(w) || w < 1 || w > 64) {
                exitCode = badInput("bench train", "--world-size: each count must be a whole number 1..64");
                return;
            }
            if (a->batch % int(w) != 0) {
                exitCode = badInput("bench train", "--batch " + std::to_string(a->batch) + " does not divide among " +
                                                       std::to_string(int(w)) + " processes");
                return;
            }
            worlds.push_back(int(w));
        }
        std::error_code ec;
        std::string pattern = (std::filesystem::temp_directory_path(ec) / "saccade-bench-train-XXXXXX").string();
        if (ec || !::mkdtemp(pattern.data())) {
            exitCode = badInput("bench train", "cannot create a temporary folder in " +
                                                   std::filesystem::temp_directory_path(ec).string());
            return;
        }
        const std::filesystem::path dir = pattern;
        nlohmann::json rows = nlohmann::json::array();
        double single = 0;
        for (int w : worlds) {
            if (!a->json) std::cerr << "timing " << w << " process" << (w > 1 ? "es" : "") << "...\n";
            auto r = runGroup(*a, w, dir);
            if (!r) {
                std::filesystem::remove_all(dir, ec);
                exitCode = badInput("bench train", r.error());
                return;
            }
            const double ips = (*r)["images_per_s"].get<double>();
            if (w == 1) single = ips;
            nlohmann::json row{{"world_size", w}, {"images_per_s", ips}, {"train_seconds", (*r)["train_seconds"]}};
            if (single > 0) row["speedup"] = ips / single;
            rows.push_back(row);
        }
        std::filesystem::remove_all(dir, ec);
        if (a->json) {
            std::cout << nlohmann::json{{"family", a->family}, {"batch", a->batch}, {"iterations", a->iterations},
                                        {"threads_per_process", 1}, {"backend", "gloo"},
                                        {"hardware_threads", ::sysconf(_SC_NPROCESSORS_ONLN)}, {"train", rows}}
                             .dump(2)
                      << "\n";
            return;
        }
        std::cout << "train " << a->family << ", global batch " << a->batch << ", " << a->iterations
                  << " iterations, one thread per process, Gloo on loopback\n"
                  << "processes  images/s  speed-up\n";
        for (const auto& row : rows) {
            std::cout << std::setw(9) << row["world_size"].get<int>() << std::setw(10) << std::fixed
                      << std::setprecision(0) << row["images_per_s"].get<double>();
            if (row.contains("speedup")) std::cout << std::setw(9) << std::setprecision(2) << row["speedup"].get<double>() << "x";
            std::cout << "\n";
        }
    });
}

}  // namespace saccade::cli
