#include "analysis/length/length_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "common/device.h"
#include "common/matmul_rate.h"
#include "common/memory_meter.h"
#include "common/runtime.h"
#include "common/timing.h"
#include "io/json_fields.h"

namespace saccade {
namespace {

constexpr double kMb = 1024.0 * 1024.0;

std::string gigabytes(double bytes) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(bytes >= 1e11 ? 0 : 1) << bytes / 1e9 << " GB";
    return s.str();
}

double inputBytes(const LengthBenchOptions& o, std::int64_t n) {
    // q, k, v and the output in float32, their gradients, and the float64 reference's copies.
    const double elements = double(o.batch) * double(o.heads) * double(n) * double(o.dim);
    return elements * 4 * (o.backward ? 8 : 4) + (o.errors ? elements * 8 * 5 : 0);
}

struct Inputs {
    torch::Tensor q, k, v, grad;
};

Inputs makeInputs(const LengthBenchOptions& o, std::int64_t n, const torch::Device& device) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed + std::uint64_t(n));
    const std::vector<std::int64_t> shape = {o.batch, o.heads, n, o.dim};
    auto draw = [&] { return at::normal(0.0, 1.0, shape, gen, torch::TensorOptions()).to(device); };
    Inputs x;
    x.q = draw();
    x.k = draw();
    x.v = draw();
    x.grad = draw();
    return x;
}

double elapsedMs(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Waits for the device's queued work, so that a time measures kernels, not their launches.
void synchronize(const torch::Device& device) {
    if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

/// Times and measures one variant at one length.
LengthPoint measure(const LengthBenchOptions& o, AttentionVariant variant, const Inputs& x, const torch::Tensor& exact64,
                    const torch::Tensor& fullOut, torch::Tensor* output, bool cpu, const torch::Device& device) {
    const auto n = x.q.size(2);
    LengthPoint p;
    p.n = n;
    {
        torch::NoGradGuard noGrad;
        torch::Tensor out;
        const auto timed = timedMs(o.repeats, [&] {
            out = torch::Tensor();
            out = attendVariant(variant, x.q, x.k, x.v, {}, o.variant);
            synchronize(device);
        }, /*warmups=*/2);
        p.forwardMs = timed.median;
        p.forwardFastestMs = timed.fastest;
        p.forwardSlowestMs = timed.slowest;
        out = torch::Tensor();
        const auto before = memory::resetCpuPeak();
        out = attendVariant(variant, x.q, x.k, x.v, {}, o.variant);
        if (cpu && memory::cpuMemoryMeterInstalled()) p.peakMb = double(memory::cpuPeakBytes() - before) / kMb;
        if (exact64.defined()) p.maxAbsError = (out.to(torch::kDouble) - exact64).abs().max().item<double>();
        if (fullOut.defined() && isExactVariant(variant)) p.maxAbsDiffFull = (out - fullOut).abs().max().item<double>();
        *output = out;
    }
    p.gflops = variantForwardFlops(variant, o.variant, o.batch * o.heads, n, n, o.dim) / (p.forwardMs / 1000.0) / 1e9;
    if (!o.backward) return p;
    std::vector<double> ms;
    for (int r = 0; r < o.repeats + 1; ++r) {
        auto q = x.q.detach().requires_grad_(), k = x.k.detach().requires_grad_(), v = x.v.detach().requires_grad_();
        const auto before = memory::resetCpuPeak();
        auto out = attendVariant(variant, q, k, v, {}, o.variant);
        synchronize(device);
        const auto t0 = std::chrono::steady_clock::now();
        out.backward(x.grad);
        synchronize(device);
        if (r > 0) ms.push_back(elapsedMs(t0));  // the first is a warm-up
        if (cpu && memory::cpuMemoryMeterInstalled()) p.backwardPeakMb = double(memory::cpuPeakBytes() - before) / kMb;
    }
    std::sort(ms.begin(), ms.end());
    p.backwardMs = ms[ms.size() / 2];
    return p;
}

void fitSlopes(LengthBenchResult& r) {
    for (const auto& [variant, points] : r.points) {
        std::vector<double> x, y, xAll, yAll;
        for (const auto& p : points) {
            xAll.push_back(double(p.n));
            yAll.push_back(p.forwardMs);
            if (p.n >= 1024) {
                x.push_back(double(p.n));
                y.push_back(p.forwardMs);
            }
        }
        r.slopes[variant] = x.size() >= 2 ? logLogSlope(x, y) : logLogSlope(xAll, yAll);
    }
}


}  // namespace

std::optional<double> logLogSlope(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() < 2 || x.size() != y.size()) return std::nullopt;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += std::log(x[i]);
        my += std::log(y[i]);
    }
    mx /= double(x.size());
    my /= double(x.size());
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (std::log(x[i]) - mx) * (std::log(y[i]) - my);
        sxx += (std::log(x[i]) - mx) * (std::log(x[i]) - mx);
    }
    if (sxx <= 0) return std::nullopt;
    return sxy / sxx;
}

std::string checkLengthBench(const LengthBenchOptions& o) {
    if (o.lengths.empty()) return "give at least one length";
    if (o.variants.empty()) return "give at least one variant";
    const auto available = o.memoryBudget > 0 ? o.memoryBudget : memory::availableSystemBytes();
    for (auto n : o.lengths) {
        for (auto variant : o.variants) {
            const auto problem = checkVariantOptions(variant, o.variant, n, n);
            if (!problem.empty()) return attentionVariantName(variant) + " at n = " + std::to_string(n) + ": " + problem;
            const auto bh = o.batch * o.heads;
            const double need = variantWorkingBytes(variant, o.variant, bh, n, n, o.dim, o.backward) + inputBytes(o, n);
            if (available > 0 && need > 0.8 * double(available))
                return attentionVariantName(variant) + " at n = " + std::to_string(n) + " needs about " + gigabytes(need) +
                       " of memory and " + gigabytes(0.8 * double(available)) +
                       " can be used here";
        }
    }
    return {};
}

Result<LengthBenchResult> benchAttentionLengths(const LengthBenchOptions& o, const Progress& progress) {
    if (const auto problem = checkLengthBench(o); !problem.empty()) return Error{problem};
    const auto device = resolveDevice(o.device);
    if (!device) return Error{device.error()};
    const bool cpu = device->is_cpu();
    if (cpu) memory::installCpuMemoryMeter();
    LengthBenchResult r;
    r.device = device->str();
    r.threads = computeThreads();
    r.matmulGflops = measureMatmulGflops(512, 7);
    const double total = double(o.lengths.size() * o.variants.size());
    double done = 0;
    for (auto n : o.lengths) {
        const auto x = makeInputs(o, n, *device);
        torch::Tensor exact64, fullOut;
        if (o.errors) {
            torch::NoGradGuard noGrad;
            VariantOptions tiles = o.variant;
            tiles.tile = 1024;
            exact64 = attendVariant(AttentionVariant::MemoryEfficient, x.q.to(torch::kDouble), x.k.to(torch::kDouble),
                                    x.v.to(torch::kDouble), {}, tiles);
        }
        // Full attention first, so that the exact variants listed before it are compared with it.
        std::vector<AttentionVariant> order = o.variants;
        std::stable_partition(order.begin(), order.end(), [](AttentionVariant v) { return v == AttentionVariant::Full; });
        for (auto variant : order) {
            torch::Tensor out;
            r.points[variant].push_back(measure(o, variant, x, exact64, fullOut, &out, cpu, *device));
            if (variant == AttentionVariant::Full) fullOut = out;
            done += 1;
            if (progress && !progress(done / total)) return Error{"cancelled"};
        }
    }
    fitSlopes(r);
    return r;
}

std::string lengthBenchToJson(const LengthBenchOptions& o, const LengthBenchResult& r, int indent) {
    nlohmann::ordered_json variants = nlohmann::ordered_json::object(), slopes = nlohmann::ordered_json::object();
    for (auto variant : o.variants) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& p : r.points.at(variant))
            rows.push_back({{"n", p.n},
                            {"ms", p.forwardMs},
                            {"backward_ms", measuredOrNull(p.backwardMs)},
                            {"peak_mb", measuredOrNull(p.peakMb)},
                            {"backward_peak_mb", measuredOrNull(p.backwardPeakMb)},
                            {"max_abs_error", measuredOrNull(p.maxAbsError)},
                            {"max_abs_diff_full", measuredOrNull(p.maxAbsDiffFull)},
                            {"gflops", p.gflops},
                            {"flop_fraction", r.matmulGflops > 0 ? nlohmann::ordered_json(p.gflops / r.matmulGflops) : nlohmann::ordered_json(nullptr)}});
        variants[attentionVariantName(variant)] = rows;
        slopes[attentionVariantName(variant)] = measuredOrNull(r.slopes.at(variant));
    }
    const auto& v = o.variant;
    nlohmann::ordered_json out = {
        {"schema", "saccade.bench-attention"}, {"version", 1},
        {"device", r.device}, {"threads", r.threads}, {"dim", o.dim}, {"heads", o.heads}, {"batch", o.batch},
        {"repeats", o.repeats}, {"seed", o.seed}, {"matmul_gflops", r.matmulGflops},
        {"options", {{"window", v.window}, {"block", v.block}, {"summary", v.summary}, {"k", v.topK},
                     {"features", v.features}, {"tile", v.tile}, {"feature_seed", v.seed}}},
        {"error_reference", o.errors ? nlohmann::ordered_json("exact attention in float64, tiled") : nlohmann::ordered_json(nullptr)},
        {"variants", variants}, {"slopes", slopes}};
    return out.dump(indent);
}

}  // namespace saccade
