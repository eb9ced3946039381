#include <gtest/gtest.h>

#include <cmath>

#include "analysis/labs/scalar_lab.h"
#include "common/parse.h"

using namespace saccade;

namespace {
ScalarLabInput workedExample() {
    ScalarLabInput in;
    in.values = {2, 6, 10};
    in.probs = {0.5, 0.3, 0.2};
    in.function = "square";
    in.u = 0.65;
    return in;
}
}  // namespace

TEST(ScalarLab, WorkedExampleNumbers) {
    const auto r = runScalarLab(workedExample());
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_NEAR(r->softContext, 4.8, 1e-12);
    EXPECT_NEAR(r->expectedHardContext, 4.8, 1e-12);
    EXPECT_NEAR(r->fSoft, 23.04, 1e-12);
    EXPECT_NEAR(r->expectedFHard, 32.8, 1e-12);
    EXPECT_EQ(r->argmaxIndex, 0);
    EXPECT_EQ(r->argmaxValue, 2.0);
    EXPECT_EQ(r->fArgmax, 4.0);
    EXPECT_EQ(r->draw.index, 1);
    EXPECT_EQ(r->draw.value, 6.0);
    EXPECT_EQ(r->draw.f, 36.0);
    EXPECT_FALSE(r->mc.has_value());
    // Var f(hard) = E[f^2] - E[f]^2 = 0.5*16 + 0.3*1296 + 0.2*10000 - 32.8^2
    EXPECT_NEAR(r->stdFHard, std::sqrt(8 + 388.8 + 2000 - 32.8 * 32.8), 1e-9);
}

TEST(ScalarLab, UniformIntervalsAreHalfOpen) {
    const std::vector<double> p = {0.5, 0.3, 0.2};
    EXPECT_EQ(selectByUniform(p, 0.0), 0);
    EXPECT_EQ(selectByUniform(p, 0.4999999), 0);
    EXPECT_EQ(selectByUniform(p, 0.5), 1);
    EXPECT_EQ(selectByUniform(p, 0.7999999), 1);
    EXPECT_EQ(selectByUniform(p, 0.8), 2);
    EXPECT_EQ(selectByUniform(p, 0.9999999999), 2);
    // Zero-probability entries are never selected, at the ends or inside.
    EXPECT_EQ(selectByUniform({0.0, 1.0, 0.0}, 0.0), 1);
    EXPECT_EQ(selectByUniform({0.0, 1.0, 0.0}, 0.9999999999), 1);
    EXPECT_EQ(selectByUniform({0.5, 0.0, 0.5}, 0.5), 2);
}

TEST(ScalarLab, MonteCarloMatchesExactWithinStandardError) {
    auto in = workedExample();
    in.samples = 200000;
    in.seed = 5;
    const auto r = runScalarLab(in);
    ASSERT_TRUE(r.ok()) << r.error();
    ASSERT_TRUE(r->mc.has_value());
    EXPECT_EQ(r->mc->n, 200000);
    EXPECT_LT(std::abs(r->mc->meanFHard - 32.8), 4 * r->mc->stderrFHard);
    // The standard error agrees with the exact std / sqrt(n) to within 2%.
    EXPECT_NEAR(r->mc->stderrFHard, r->stdFHard / std::sqrt(200000.0), 0.02 * r->mc->stderrFHard);
    std::int64_t total = 0;
    for (const auto& o : r->outcomes) total += o.mcCount;
    EXPECT_EQ(total, 200000);
    EXPECT_NEAR(r->outcomes[1].mcCount / 200000.0, 0.3, 0.005);
}

TEST(ScalarLab, SameSeedSameDrawsOtherSeedOtherDraws) {
    auto in = workedExample();
    in.u.reset();
    in.samples = 1000;
    in.seed = 11;
    const auto a = runScalarLab(in), b = runScalarLab(in);
    in.seed = 12;
    const auto c = runScalarLab(in);
    EXPECT_EQ(a->draw.u, b->draw.u);
    EXPECT_EQ(a->mc->meanFHard, b->mc->meanFHard);
    EXPECT_NE(a->draw.u, c->draw.u);
    EXPECT_NE(a->mc->meanFHard, c->mc->meanFHard);
    EXPECT_GE(a->draw.u, 0.0);
    EXPECT_LT(a->draw.u, 1.0);
}

TEST(ScalarLab, Functions) {
    struct Case {
        const char* spec;
        double x, y;
    };
    for (const Case& c : {Case{"identity", 3, 3}, Case{"square", -3, 9}, Case{"cube", 2, 8},
                          Case{"relu", -1, 0}, Case{"relu", 2.5, 2.5}, Case{"tanh", 0, 0},
                          Case{"sigmoid", 0, 0.5}, Case{"exp", 1, std::exp(1.0)},
                          Case{"poly:1,0,2", 3, 19}, Case{"poly:-1", 7, -1}}) {
        const auto f = ScalarFunction::parse(c.spec);
        ASSERT_TRUE(f.ok()) << c.spec << ": " << f.error();
        EXPECT_NEAR((*f)(c.x), c.y, 1e-12) << c.spec;
    }
    // With identity, E[f(hard)] equals f(soft): linearity is exactly what soft attention needs.
    auto in = workedExample();
    in.function = "identity";
    EXPECT_NEAR(runScalarLab(in)->expectedFHard, runScalarLab(in)->fSoft, 1e-12);
}

TEST(ScalarLab, BadInputsNameTheProblem) {
    struct Case {
        std::vector<double> values, probs;
        std::string function;
        std::optional<double> u;
        std::string expected;
    };
    const std::vector<Case> cases = {
        {{2, 6, 10}, {0.5, 0.3}, "square", 0.5, "length mismatch"},
        {{2, 6, 10}, {0.5, 0.3, 0.3}, "square", 0.5, "sum to 1.1"},
        {{2, 6, 10}, {-0.1, 0.9, 0.2}, "square", 0.5, "probability 1 is negative"},
        {{2, 6, 10}, {0.5, 0.3, 0.2}, "square", 1.0, "outside [0, 1)"},
        {{2, 6, 10}, {0.5, 0.3, 0.2}, "square", -0.01, "outside [0, 1)"},
        {{2, 6, 10}, {0.5, 0.3, 0.2}, "quartic", 0.5, "unknown function 'quartic'"},
        {{}, {}, "square", 0.5, "no values"},
    };
    for (const auto& c : cases) {
        ScalarLabInput in;
        in.values = c.values;
        in.probs = c.probs;
        in.function = c.function;
        in.u = c.u;
        const auto r = runScalarLab(in);
        ASSERT_FALSE(r.ok()) << c.expected;
        EXPECT_NE(r.error().find(c.expected), std::string::npos) << r.error();
        EXPECT_EQ(r.error().find('\n'), std::string::npos) << "one line: " << r.error();
    }
    // Within 1e-6 of 1 is accepted.
    auto in = workedExample();
    in.probs = {0.5, 0.3, 0.2 + 5e-7};
    EXPECT_TRUE(runScalarLab(in).ok());
}

TEST(ScalarLab, JsonHasTheDocumentedKeys) {
    auto in = workedExample();
    in.samples = 10;
    const auto json = scalarLabToJson(*runScalarLab(in));
    for (const char* key : {"\"soft_context\"", "\"expected_hard_context\"", "\"f_soft\"",
                            "\"expected_f_hard\"", "\"argmax_value\"", "\"f_argmax\"", "\"draw\"",
                            "\"u\"", "\"index\"", "\"value\"", "\"mc\"", "\"mean_f_hard\"",
                            "\"stderr\"", "\"n\""})
        EXPECT_NE(json.find(key), std::string::npos) << key;
}

TEST(ParseNumberList, AcceptsSpacesAndRejectsJunk) {
    EXPECT_EQ(*parseNumberList(" 2, 6 ,10", "values"), (std::vector<double>{2, 6, 10}));
    EXPECT_EQ(*parseNumberList("-1.5e1", "values"), (std::vector<double>{-15}));
    EXPECT_NE(parseNumberList("2,,6", "values").error().find("item 2 is empty"), std::string::npos);
    EXPECT_NE(parseNumberList("2,x", "values").error().find("'x' is not a finite number"),
              std::string::npos);
    EXPECT_NE(parseNumberList("nan", "values").error().find("not a finite"), std::string::npos);
    EXPECT_FALSE(parseNumberList("", "values").ok());
}
