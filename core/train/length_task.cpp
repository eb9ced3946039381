#include "train/length_task.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <numeric>

#include <ATen/CPUGeneratorImpl.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "common/memory_meter.h"
#include "metrics/accuracy.h"

namespace saccade {
namespace {

constexpr std::int64_t kRecallKeys = 16;
constexpr std::int64_t kRecallValues = 10;
constexpr std::int64_t kQueryValue = kRecallValues;  // the read-out token's value slot: "asked for"

struct RetrievalBatch {
    torch::Tensor tokens, labels;  // [B, n, 2] int64 (key, value), [B] int64
};

/// Token 0 asks for a key; exactly one of positions 1..n-1 holds that key, and its value is the
/// answer. Every other position holds another key (drawn from the rest) and a random value.
RetrievalBatch makeRetrievalBatch(std::int64_t batch, std::int64_t n, at::Generator& gen) {
    const auto longs = torch::TensorOptions().dtype(torch::kLong);
    const auto wanted = at::randint(0, kRecallKeys, {batch, 1}, gen, longs);
    auto keys = at::randint(0, kRecallKeys - 1, {batch, n}, gen, longs);
    keys = keys + (keys >= wanted).to(torch::kLong);  // never the wanted key
    auto values = at::randint(0, kRecallValues, {batch, n}, gen, longs);
    const auto where = at::randint(1, n, {batch, 1}, gen, longs);
    keys.scatter_(1, where, wanted);
    keys.select(1, 0).copy_(wanted.squeeze(1));
    const auto labels = values.gather(1, where).squeeze(1);
    values.select(1, 0).fill_(kQueryValue);
    return {torch::stack({keys, values}, 2), labels};
}

/// The options at length n: a window, block or k larger than n is capped at n.
VariantOptions cappedTo(const VariantOptions& o, std::int64_t n) {
    auto c = o;
    c.window = std::min(c.window, n);
    c.block = std::min(c.block, n);
    c.summary = std::min(c.summary, c.block);
    c.topK = std::min(c.topK, n);
    return c;
}

struct RetrievalLayerImpl : torch::nn::Module {
    RetrievalLayerImpl(std::int64_t dim, std::int64_t ff) {
        norm1 = register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
        qkv = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
        proj = register_module("proj", torch::nn::Linear(dim, dim));
        norm2 = register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
        fc1 = register_module("fc1", torch::nn::Linear(dim, ff));
        fc2 = register_module("fc2", torch::nn::Linear(ff, dim));
    }
    torch::Tensor forward(const torch::Tensor& x, std::int64_t heads, AttentionVariant variant, const VariantOptions& o) {
        const auto B = x.size(0), n = x.size(1), d = x.size(2);
        const auto parts = qkv(norm1(x)).view({B, n, 3, heads, d / heads}).permute({2, 0, 3, 1, 4});
        const auto mixed = attendVariant(variant, parts[0], parts[1], parts[2], {}, o);  // [B, H, n, dh]
        const auto h = x + proj(mixed.transpose(1, 2).reshape({B, n, d}));
        return h + fc2(torch::gelu(fc1(norm2(h))));
    }
    torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};
    torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(RetrievalLayer);

struct RetrieverImpl : torch::nn::Module {
    explicit RetrieverImpl(const LengthTaskOptions& o) : options(o) {
        keyEmbed = register_module("key_embed", torch::nn::Embedding(kRecallKeys, o.dim));
        valueEmbed = register_module("value_embed", torch::nn::Embedding(kRecallValues + 1, o.dim));
        for (std::int64_t l = 0; l < o.layers; ++l) layers.push_back(register_module("layer" + std::to_string(l), RetrievalLayer(o.dim, o.ff)));
        norm = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({o.dim})));
        head = register_module("head", torch::nn::Linear(o.dim, kRecallValues));
    }
    torch::Tensor forward(const torch::Tensor& tokens) {
        auto x = keyEmbed(tokens.select(2, 0)) + valueEmbed(tokens.select(2, 1));
        const auto o = cappedTo(options.options, tokens.size(1));
        for (auto& layer : layers) x = layer->forward(x, options.heads, options.variant, o);
        return head(norm(x.select(1, 0)));
    }
    LengthTaskOptions options;
    torch::nn::Embedding keyEmbed{nullptr}, valueEmbed{nullptr};
    std::vector<RetrievalLayer> layers;
    torch::nn::LayerNorm norm{nullptr};
    torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Retriever);

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result<LengthTaskPoint> testRetrievalAt(Retriever& model, const LengthTaskOptions& o, std::int64_t n) {
    torch::NoGradGuard noGrad;
    // The same test sequences for every variant and run: their own stream, by length.
    auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed * 1000003ULL + std::uint64_t(n));
    const auto batch = std::max<std::int64_t>(1, 8192 / n);
    std::int64_t correct = 0;
    for (std::int64_t done = 0; done < o.testCount; done += batch) {
        const auto b = makeRetrievalBatch(std::min(batch, o.testCount - done), n, gen);
        correct += (model->forward(b.tokens).argmax(1) == b.labels).sum().item<std::int64_t>();
    }
    const auto w = wilsonAccuracy("", correct, o.testCount);
    return LengthTaskPoint{n, w.accuracy, w.low, w.high};
}

}  // namespace

std::string checkLengthTask(const LengthTaskOptions& o) {
    if (o.trainLength < 2) return "the training length must be at least 2";
    if (o.batch < 1 || o.testCount < 1) return "the batch and the test count must be at least 1";
    if (o.seconds <= 0 && o.steps <= 0) return "give a training time or a number of steps";
    if (o.dim % o.heads != 0) return "the width " + std::to_string(o.dim) + " must divide into " + std::to_string(o.heads) + " heads";
    if (o.options.summary > o.options.block)
        return "summary " + std::to_string(o.options.summary) + " must be 1 to the block length " + std::to_string(o.options.block);
    std::vector<std::int64_t> lengths = o.testLengths;
    lengths.push_back(o.trainLength);
    const auto available = memory::availableSystemBytes();
    for (auto n : lengths) {
        if (n < 2) return "lengths must be at least 2 (got " + std::to_string(n) + ")";
        const auto capped = cappedTo(o.options, n);
        const auto problem = checkVariantOptions(o.variant, capped, n, n);
        if (!problem.empty()) return attentionVariantName(o.variant) + " at n = " + std::to_string(n) + ": " + problem;
        // Training keeps every layer's attention for the backward pass; a test batch holds about
        // 8,192 tokens. Both must fit before anything is trained.
        const bool training = n == o.trainLength;
        const auto batch = training ? o.batch : std::max<std::int64_t>(1, 8192 / n);
        const double activations = double(batch) * double(n) * double(4 * o.dim * 6 + o.ff * 3) * 4.0;
        const double need = double(o.layers) * (variantWorkingBytes(o.variant, capped, batch * o.heads, n, n, o.dim / o.heads, training) +
                                                activations * (training ? 2.0 : 1.0));
        if (available > 0 && need > 0.8 * double(available))
            return attentionVariantName(o.variant) + " at n = " + std::to_string(n) + (training ? " (training, batch " : " (testing, batch ") +
                   std::to_string(batch) + ") needs about " + std::to_string(std::llround(need / 1e9)) + " GB of memory and " +
                   std::to_string(std::llround(0.8 * double(available) / 1e9)) + " GB can be used here";
    }
    return {};
}

Result<LengthTaskResult> runLengthTask(const LengthTaskOptions& o, const Progress& progress) {
    if (const auto problem = checkLengthTask(o); !problem.empty()) return Error{problem};
    torch::manual_seed(o.seed);
    Retriever model(o);
    torch::optim::Adam optimiser(model->parameters(), torch::optim::AdamOptions(o.learningRate));
    auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
    LengthTaskResult r;
    r.variant = o.variant;
    std::deque<double> recent;
    const auto t0 = std::chrono::steady_clock::now();
    const double trainShare = 0.8;
    while ((o.steps <= 0 || r.steps < o.steps) && (o.seconds <= 0 || secondsSince(t0) < o.seconds)) {
        // Lengths drawn log-uniformly from [min(16, n), n] batch by batch: short sequences teach where to look
        // (attention spread over 500 keys gives the read-out almost no gradient at first).
        const double lo = std::log(double(std::min<std::int64_t>(16, o.trainLength))), hi = std::log(double(o.trainLength));
        const auto u = at::rand({1}, gen, torch::TensorOptions().dtype(torch::kDouble)).item<double>();
        const auto n = std::clamp<std::int64_t>(std::llround(std::exp(lo + u * (hi - lo))), 2, o.trainLength);
        const auto b = makeRetrievalBatch(o.batch, n, gen);
        const auto loss = torch::cross_entropy_loss(model->forward(b.tokens), b.labels);
        optimiser.zero_grad();
        loss.backward();
        optimiser.step();
        recent.push_back(loss.item<double>());
        if (recent.size() > 50) recent.pop_front();
        ++r.steps;
        const double done = o.seconds > 0 ? secondsSince(t0) / o.seconds : double(r.steps) / double(o.steps);
        if (progress && !progress(trainShare * std::min(1.0, done))) return Error{"cancelled"};
    }
    r.trainSeconds = secondsSince(t0);
    r.finalLoss = std::accumulate(recent.begin(), recent.end(), 0.0) / double(std::max<std::size_t>(1, recent.size()));
    model->eval();
    for (std::size_t i = 0; i < o.testLengths.size(); ++i) {
        auto point = testRetrievalAt(model, o, o.testLengths[i]);
        if (!point) return Error{point.error()};
        r.test.push_back(*point);
        if (progress && !progress(trainShare + (1 - trainShare) * double(i + 1) / double(o.testLengths.size())))
            return Error{"cancelled"};
    }
    return r;
}

std::string lengthTaskToJson(const LengthTaskOptions& o, const std::vector<LengthTaskResult>& results, int indent) {
    nlohmann::ordered_json variants = nlohmann::ordered_json::object();
    for (const auto& r : results) {
        auto test = nlohmann::ordered_json::array();
        for (const auto& p : r.test) test.push_back({{"n", p.n}, {"accuracy", p.accuracy}, {"low", p.low}, {"high", p.high}});
        variants[attentionVariantName(r.variant)] = {{"steps", r.steps}, {"train_seconds", r.trainSeconds},
                                                     {"final_loss", r.finalLoss}, {"test", test}};
    }
    const auto& v = o.options;
    nlohmann::ordered_json out = {
        {"schema", "saccade.length-task"}, {"version", 1}, {"task", "associative recall"}, {"keys", kRecallKeys}, {"values", kRecallValues},
        {"train_length", o.trainLength}, {"seconds", o.seconds > 0 ? nlohmann::ordered_json(o.seconds) : nlohmann::ordered_json(nullptr)},
        {"steps_cap", o.steps > 0 ? nlohmann::ordered_json(o.steps) : nlohmann::ordered_json(nullptr)},
        {"batch", o.batch}, {"dim", o.dim}, {"heads", o.heads}, {"layers", o.layers}, {"ff", o.ff},
        {"learning_rate", o.learningRate}, {"seed", o.seed}, {"test_count", o.testCount},
        {"options", {{"window", v.window}, {"block", v.block}, {"summary", v.summary}, {"k", v.topK},
                     {"features", v.features}, {"feature_seed", v.seed}}},
        {"variants", variants}};
    return out.dump(indent);
}

}  // namespace saccade
