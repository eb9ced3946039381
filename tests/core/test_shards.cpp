// Sharded evaluations: i/N parsed strictly, slices that tile the items on batch boundaries, sums
// that do not depend on their order, and the checks merge makes before it combines shards.

#include <cmath>

#include <gtest/gtest.h>

#include "analysis/shards/shard_merge.h"
#include "common/shard.h"
#include "io/shard_json.h"

using namespace saccade;

TEST(Shards, ParseStrictly) {
    auto s = parseShard("2/5");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->index, 2);
    EXPECT_EQ(s->count, 5);
    EXPECT_TRUE(s->active());
    EXPECT_TRUE(parseShard("0/1")->active());  // given: a one-task array still prints a shard to merge
    EXPECT_FALSE(Shard{}.active());
    for (const char* bad : {"5/5", "-1/5", "1/5x", "1", "/5", "1/", "1/0", "a/b", "1/100001", " 1/5"})
        EXPECT_FALSE(parseShard(bad).ok()) << bad;
}

TEST(Shards, SlicesTileTheItemsOnBatchBoundaries) {
    for (std::int64_t total : {0, 1, 99, 250, 251, 1000, 10000})
        for (int count : {1, 2, 3, 7, 64}) {
            std::int64_t next = 0;
            for (int i = 0; i < count; ++i) {
                const auto r = shardRange({i, count}, total, 250);
                EXPECT_EQ(r.begin, next) << total << " " << i << "/" << count;
                EXPECT_GE(r.end, r.begin);
                if (r.begin < total) {
                    EXPECT_EQ(r.begin % 250, 0);  // a batch of the unsharded run
                }
                next = r.end;
            }
            EXPECT_EQ(next, total);
        }
    // Even slices where the batches allow: 10 batches in 4 shards are 2, 3, 2, 3 batches.
    EXPECT_EQ(shardRange({1, 4}, 2500, 250).begin, 500);
    EXPECT_EQ(shardRange({1, 4}, 2500, 250).end, 1250);
}

TEST(Shards, MoreShardsThanBatchesAreRefusedWithTheMostThatWork) {
    // 300 items in batches of 250 are two batches: three shards would be 0, 250 and 50 items.
    auto three = batchedShardRange({0, 3, true}, 300, 250);
    ASSERT_FALSE(three.ok());
    EXPECT_NE(three.error().find("300 items in batches of 250 are 2 batches: split them into at most 2 shards"),
              std::string::npos) << three.error();
    auto second = batchedShardRange({1, 2, true}, 300, 250);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->begin, 250);
    EXPECT_EQ(second->end, 300);
    EXPECT_TRUE(batchedShardRange({0, 1, true}, 0, 250).ok());  // one shard of nothing is still one run
}

TEST(Shards, ExactSumsDoNotDependOnOrder) {
    std::vector<double> terms;
    for (int i = 0; i < 1000; ++i) terms.push_back(1.0 / (i + 3) + (i % 7) * 0.1);
    ExactSum forward, backward, halves, left, right;
    for (double t : terms) forward.add(t);
    for (auto it = terms.rbegin(); it != terms.rend(); ++it) backward.add(*it);
    for (std::size_t i = 0; i < terms.size(); ++i) (i < 400 ? left : right).add(terms[i]);
    halves.add(right);
    halves.add(left);
    EXPECT_EQ(forward.units(), backward.units());
    EXPECT_EQ(forward.units(), halves.units());
    double plain = 0;
    for (double t : terms) plain += t;
    EXPECT_NEAR(forward.value(), plain, 1e-6);
    EXPECT_EQ(ExactSum::fromUnits(forward.units()).value(), forward.value());
    ExactSum negative;
    negative.add(-0.25);
    EXPECT_DOUBLE_EQ(negative.value(), -0.25);
    negative.add(std::nan(""));
    negative.add(INFINITY);
    EXPECT_DOUBLE_EQ(negative.value(), -0.25);  // non-finite terms are not added
}

TEST(Shards, MergeRefusesGapsDuplicatesAndForeignShards) {
    auto doc = [](int i, int n, std::int64_t b, std::int64_t e, const char* fp = "abc", const char* cmd = "eval") {
        return nlohmann::json{{"shard", shardHeader(cmd, {i, n}, b, e, 100, fp)}}.dump();
    };
    auto ok = orderedShards({doc(1, 2, 50, 100), doc(0, 2, 0, 50)}, {"b", "a"});
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ((*ok)[0]["shard"]["index"], 0);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50)}, {"a"}).error().find("shard 1/2 is missing"), std::string::npos);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50), doc(0, 2, 0, 50)}, {"a", "b"}).error().find("given twice"),
              std::string::npos);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50), doc(1, 2, 50, 100, "xyz")}, {"a", "b"}).error().find("other arguments"),
              std::string::npos);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50), doc(1, 2, 60, 100)}, {"a", "b"}).error().find("does not continue"),
              std::string::npos);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50), doc(1, 2, 50, 90)}, {"a", "b"}).error().find("cover items 0..90"),
              std::string::npos);
    EXPECT_NE(orderedShards({doc(0, 2, 0, 50), doc(1, 2, 50, 100, "abc", "sweep")}, {"a", "b"}).error().find("another run"),
              std::string::npos);
    EXPECT_NE(orderedShards({"{"}, {"x.json"}).error().find("'x.json' is not JSON"), std::string::npos);
    EXPECT_NE(orderedShards({"{}"}, {"x.json"}).error().find("no \"shard\" object"), std::string::npos);
}

TEST(Shards, MergeRefusesForgedCountsAndItemLists) {
    // Two eval shards of 50 images each; `rules` is what shard 1 reports.
    auto eval = [](int i, const std::string& rules) {
        nlohmann::json j = {{"shard", shardHeader("eval", {i, 2}, 50 * i, 50 * i + 50, 100, "abc")},
                            {"dataset", "digits28"}, {"split", "test"}, {"trained_mode", "hard"},
                            {"output_kind", "class"}, {"seconds", 1.0}};
        j["rules"] = nlohmann::json::parse(i == 0 ? R"([{"rule": "argmax", "correct": 40, "n": 50}])" : rules);
        return j.dump();
    };
    auto merge = [&](const std::string& rules) {
        auto r = mergeShardDocuments({eval(0, ""), eval(1, rules)}, {"a", "b"}, -1);
        return r.ok() ? std::string("ok: ") + *r : r.error();
    };
    const std::string good = merge(R"([{"rule": "argmax", "correct": 45, "n": 50}])");
    EXPECT_NE(good.find("ok: "), std::string::npos) << good;
    EXPECT_NE(good.find("\"n\":100"), std::string::npos) << good;
    for (const auto& [forged, words] : std::vector<std::pair<std::string, std::string>>{
             {R"([{"rule": "argmax", "correct": 5, "n": 18446744073709551621}])", "\"n\" is 1.844674407370955"},
             {R"([{"rule": "argmax", "correct": -100, "n": 50}])", "\"correct\" is -100"},
             {R"([{"rule": "argmax", "correct": 218.5, "n": 300}])", "\"correct\" is 218.5"},
             {R"([{"rule": "argmax", "correct": 60, "n": 50}])", "60 correct of 50"}}) {
        const std::string error = merge(forged);
        EXPECT_NE(error.find(words), std::string::npos) << forged << " gave: " << error;
        EXPECT_EQ(error.find("ok: "), std::string::npos) << forged;
    }

    // Adequacy: per_image must list exactly the images of the shard's range, in order.
    auto adequacy = [](int i, int listed, std::int64_t firstIndex, const nlohmann::json& agreement = 0.5) {
        nlohmann::json j = {{"shard", shardHeader("adequacy", {i, 2}, 150 * i, 150 * i + 150, 300, "abc")}, {"runs", 20}};
        j["per_image"] = nlohmann::json::array();
        for (int k = 0; k < listed; ++k)
            j["per_image"].push_back({{"index", firstIndex + k}, {"agreement", agreement}, {"output-entropy", 0.3},
                                      {"mutual-info", nullptr}, {"look-spread", 4.0}, {"confidence", 0.9}});
        return j.dump();
    };
    auto refused = [](const Result<std::string>& r) { return r.ok() ? std::string("accepted") : r.error(); };
    EXPECT_NE(refused(mergeShardDocuments({adequacy(0, 150, 0), adequacy(1, 10, 150)}, {"a", "b"}, -1))
                  .find("lists 10 images for the 150 of its header"),
              std::string::npos);
    EXPECT_NE(refused(mergeShardDocuments({adequacy(0, 150, 0), adequacy(1, 150, 149)}, {"a", "b"}, -1))
                  .find("per_image entry 0 is not image 150"),
              std::string::npos);
    // With 20 sampled runs, agreement is always measured, and a fraction.
    EXPECT_NE(refused(mergeShardDocuments({adequacy(0, 150, 0), adequacy(1, 150, 150, nullptr)}, {"a", "b"}, -1))
                  .find("image 150: the signal \"agreement\" is null"),
              std::string::npos);
    EXPECT_NE(refused(mergeShardDocuments({adequacy(0, 150, 0), adequacy(1, 150, 150, 1.5)}, {"a", "b"}, -1))
                  .find("\"agreement\" is 1.5, out of its range"),
              std::string::npos);
}
