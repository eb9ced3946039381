// Data-parallel training over c10d: the settings (flags over torchrun's variables, parsed
// strictly), the shard of each global batch, and the shared training loop run by two ranks on
// loopback (two threads, each its own Gloo process group): parameters equal on both ranks, equal
// to one process on the whole batch, a lost rank that stops the other, and a resumed run.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <stdexcept>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "io/checkpoint.h"
#include "temp_dir.h"
#include "train/distributed_settings.h"
#include "train/train_loop.h"
#include "train/training_group.h"

using namespace saccade;

TEST(DistributedSettings, FlagsWinOverTheEnvironmentWhichIsParsedStrictly) {
    std::map<std::string, std::string> env;
    auto getenv = [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
    auto plain = resolveDistributed({}, getenv);
    ASSERT_TRUE(plain.ok());
    EXPECT_FALSE(plain->active());
    EXPECT_EQ(plain->masterPort, 29500);

    env = {{"WORLD_SIZE", "4"}, {"RANK", "3"}, {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "29400"}};
    auto fromEnv = resolveDistributed({}, getenv);
    ASSERT_TRUE(fromEnv.ok()) << fromEnv.error();
    EXPECT_EQ(fromEnv->worldSize, 4);
    EXPECT_EQ(fromEnv->rank, 3);
    EXPECT_EQ(fromEnv->masterAddr, "node7");
    EXPECT_EQ(fromEnv->masterPort, 29400);
    EXPECT_EQ(fromEnv->localRank, -1);

    DistributedFlags flags;
    flags.rank = 1;
    flags.masterPort = 1234;
    auto mixed = resolveDistributed(flags, getenv);
    ASSERT_TRUE(mixed.ok());
    EXPECT_EQ(mixed->rank, 1);
    EXPECT_EQ(mixed->masterPort, 1234);
    EXPECT_EQ(mixed->worldSize, 4);

    env = {{"WORLD_SIZE", "2x"}};
    EXPECT_NE(resolveDistributed({}, getenv).error().find("WORLD_SIZE"), std::string::npos);
    env = {{"WORLD_SIZE", "2"}, {"RANK", "2"}};
    EXPECT_NE(resolveDistributed({}, getenv).error().find("0..1"), std::string::npos);
    env = {{"WORLD_SIZE", "2"}, {"RANK", "-1"}};
    EXPECT_FALSE(resolveDistributed({}, getenv).ok());
    env = {{"MASTER_PORT", "0"}};
    EXPECT_NE(resolveDistributed({}, getenv).error().find("MASTER_PORT"), std::string::npos);
    env = {{"MASTER_PORT", "65536"}};
    EXPECT_FALSE(resolveDistributed({}, getenv).ok());
    env = {{"MASTER_ADDR", "a b"}};
    EXPECT_FALSE(resolveDistributed({}, getenv).ok());
    env = {{"LOCAL_RANK", "1x"}};
    EXPECT_NE(resolveDistributed({}, getenv).error().find("LOCAL_RANK"), std::string::npos);

    // torchrun's one process per GPU: LOCAL_RANK picks the GPU of a rank whose device is auto.
    env = {{"WORLD_SIZE", "4"}, {"RANK", "3"}, {"LOCAL_RANK", "3"}};
    auto local = resolveDistributed({}, getenv);
    ASSERT_TRUE(local.ok());
    EXPECT_EQ(local->localRank, 3);
    EXPECT_EQ(trainingDeviceSpec("auto", *local, 2), "cuda:1");
    EXPECT_EQ(trainingDeviceSpec("auto", *local, 0), "auto");  // no GPU: auto stays auto (the CPU)
    EXPECT_EQ(trainingDeviceSpec("cpu", *local, 2), "cpu");    // an explicit device wins
    EXPECT_EQ(trainingDeviceSpec("auto", DistributedSettings{}, 2), "auto");
}

TEST(DistributedSettings, EachRankTakesItsOwnEvenSliceAndItsOwnDraws) {
    DistributedSettings s;
    s.worldSize = 4;
    s.rank = 2;
    auto shard = batchShard(s, 32);
    ASSERT_TRUE(shard.ok());
    EXPECT_EQ(shard->offset, 16);
    EXPECT_EQ(shard->size, 8);
    EXPECT_NE(batchShard(s, 30).error().find("divide evenly"), std::string::npos);
    EXPECT_EQ(batchShard(DistributedSettings{}, 30)->size, 30);
    EXPECT_EQ(rankSeed(7, 0), 7u);  // one process is unchanged
    EXPECT_NE(rankSeed(7, 1), 7u);
    EXPECT_NE(rankSeed(7, 1), rankSeed(7, 2));
}

namespace {

int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

constexpr int kBatch = 8;

/// A fixed regression problem: the global batch, rows [offset, offset + n).
std::pair<torch::Tensor, torch::Tensor> rows(int offset, int n) {
    auto gen = torch::make_generator<at::CPUGeneratorImpl>(1000);
    auto x = torch::randn({kBatch, 3}, gen);
    auto y = x.matmul(torch::tensor({1.5, -2.0, 0.5})).unsqueeze(1) + 0.25;
    return {x.narrow(0, offset, n), y.narrow(0, offset, n)};
}

/// One rank (or the single process) of a small linear regression, trained by the shared loop.
struct Trainer {
    test::TempDir dir{"saccade-dist"};
    torch::nn::Linear net{3, 1};
    torch::optim::Adam adam{net->parameters(), torch::optim::AdamOptions(0.05)};
    std::vector<double> losses;
    std::int64_t failAt = -1;  ///< this rank's step throws here (a crashed rank)
    std::int64_t stopAt = -1;  ///< this rank asks to stop after this iteration (Ctrl-C)

    Trainer(std::uint64_t initSeed, const DistributedSettings& d) : dist(d) {
        torch::NoGradGuard noGrad;
        auto gen = torch::make_generator<at::CPUGeneratorImpl>(initSeed);
        net->weight.copy_(torch::randn({1, 3}, gen));
        net->bias.copy_(torch::randn({1}, gen));
    }
    DistributedSettings dist;

    Result<TrainSummary> run(std::int64_t first, std::int64_t total, const std::string& out, bool resumed = false) {
        TrainLoopSetup s;
        s.net = net.ptr().get();
        s.optimizer = &adam;
        s.info.modelType = "test";
        s.info.configJson = "{}";
        s.out = out;
        s.resumed = resumed;
        s.firstIteration = first;
        s.totalIterations = total;
        s.evalEvery = 2;
        s.lr = 0.05;
        s.imagesPerIteration = kBatch;
        s.distributed = dist;
        auto shard = batchShard(dist, kBatch);
        auto step = [&, shard = *shard](std::int64_t it, double, TrainProgress& p) {
            if (it == failAt) throw std::runtime_error("this rank crashed");
            auto [x, y] = rows(shard.offset, shard.size);
            auto loss = (net(x) - y).pow(2).mean();
            adam.zero_grad();
            loss.backward();
            p.loss = loss.item<double>();
        };
        auto evaluate = [](TrainProgress&) { return nlohmann::json{{"eval_x", 1}}; };
        auto onProgress = [&](const TrainProgress& p) {
            losses.push_back(p.loss);
            return p.iteration != stopAt;
        };
        return runTrainLoop(s, step, evaluate, onProgress);
    }
};

DistributedSettings rankOf(int rank, int port) {
    DistributedSettings d;
    d.worldSize = 2;
    d.rank = rank;
    d.masterPort = port;
    d.timeoutSeconds = 30;
    return d;
}

std::vector<float> weights(Trainer& t) {
    auto w = torch::cat({t.net->weight.detach().reshape({-1}), t.net->bias.detach()});
    return std::vector<float>(w.data_ptr<float>(), w.data_ptr<float>() + w.numel());
}

}  // namespace

TEST(DistributedTraining, TwoRanksMatchEachOtherAndOneProcessOnTheWholeBatch) {
    const int port = freePort();
    Trainer single(1, DistributedSettings{});
    Trainer r0(1, rankOf(0, port)), r1(99, rankOf(1, port));  // rank 1 starts elsewhere: rank 0's weights win
    auto reference = single.run(0, 6, single.dir.file("single.pt"));
    ASSERT_TRUE(reference.ok()) << reference.error();
    auto other = std::async(std::launch::async, [&] { return r1.run(0, 6, r1.dir.file("rank1.pt")); });
    auto leader = r0.run(0, 6, r0.dir.file("rank0.pt"));
    auto follower = other.get();
    ASSERT_TRUE(leader.ok()) << leader.error();
    ASSERT_TRUE(follower.ok()) << follower.error();

    EXPECT_EQ(leader->parametersCrc, follower->parametersCrc);
    EXPECT_EQ(weights(r0), weights(r1));  // bit-identical on both ranks
    const auto expected = weights(single);
    const auto got = weights(r0);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << "parameter " << i;
    // The loss each rank reports is the global batch's, as one process computes it.
    ASSERT_EQ(r0.losses.size(), 6u);
    for (std::size_t i = 0; i < 6; ++i) {
        EXPECT_NEAR(r0.losses[i], single.losses[i], 1e-5) << "iteration " << i;
        EXPECT_DOUBLE_EQ(r0.losses[i], r1.losses[i]);
    }
    EXPECT_GT(single.losses.front(), single.losses.back());  // it learned something
    // Rank 0 alone writes the checkpoint and the metrics.
    EXPECT_TRUE(std::filesystem::exists(r0.dir.file("rank0.pt")));
    EXPECT_TRUE(std::filesystem::exists(r0.dir.file("rank0.metrics.json")));
    EXPECT_FALSE(std::filesystem::exists(r1.dir.file("rank1.pt")));
    EXPECT_FALSE(std::filesystem::exists(r1.dir.file("rank1.metrics.json")));
    EXPECT_TRUE(single.losses.size() == 6 && reference->parametersCrc.empty());
}

TEST(DistributedTraining, ALostRankStopsTheOtherWithAMessageNotAHang) {
    const int port = freePort();
    Trainer r0(1, rankOf(0, port)), r1(1, rankOf(1, port));
    r1.failAt = 3;
    auto other = std::async(std::launch::async, [&] {
        try {
            return r1.run(0, 1000, r1.dir.file("rank1.pt"));
        } catch (const std::exception& e) {
            return Result<TrainSummary>(Error{e.what()});  // the crash: its group goes with it
        }
    });
    const auto start = std::chrono::steady_clock::now();
    auto leader = r0.run(0, 1000, r0.dir.file("rank0.pt"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(other.get().ok());
    ASSERT_FALSE(leader.ok());
    EXPECT_NE(leader.error().find("rank 0 of 2 lost the training group"), std::string::npos) << leader.error();
    EXPECT_LT(seconds, 30.0);  // the group's timeout: the broken connection is seen before it
    EXPECT_EQ(r0.losses.size(), 3u);
}

TEST(DistributedTraining, ARunResumedOnTwoRanksContinuesFromTheCheckpoint) {
    // 8 iterations on two ranks, stopped after 4 by rank 1 (both stop and rank 0 saves), then
    // resumed from rank 0's checkpoint: equal to 8 in one go.
    const int port = freePort(), port2 = freePort();
    Trainer single(1, DistributedSettings{});
    ASSERT_TRUE(single.run(0, 8, single.dir.file("single.pt")).ok());

    test::TempDir shared("saccade-dist-shared");
    const auto ckpt = shared.file("m.pt");
    {
        Trainer r0(1, rankOf(0, port)), r1(1, rankOf(1, port));
        r1.stopAt = 4;
        auto other = std::async(std::launch::async, [&] { return r1.run(0, 8, ckpt); });
        auto stopped = r0.run(0, 8, ckpt);
        ASSERT_TRUE(stopped.ok()) << stopped.error();
        EXPECT_TRUE(stopped->cancelled);
        ASSERT_TRUE(other.get().ok());
    }
    ASSERT_EQ(readCheckpointInfo(ckpt)->iteration, 4);
    Trainer r0(5, rankOf(0, port2)), r1(6, rankOf(1, port2));
    for (Trainer* t : {&r0, &r1}) ASSERT_TRUE(loadCheckpointWeights(*t->net, &t->adam, ckpt, nullptr).ok());
    auto other = std::async(std::launch::async, [&] { return r1.run(4, 8, ckpt, true); });
    auto leader = r0.run(4, 8, ckpt, true);
    ASSERT_TRUE(leader.ok()) << leader.error();
    ASSERT_TRUE(other.get().ok());
    EXPECT_EQ(readCheckpointInfo(ckpt)->iteration, 8);
    const auto expected = weights(single), got = weights(r0);
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << "parameter " << i;
}
