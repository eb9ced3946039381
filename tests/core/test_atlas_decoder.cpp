// The atlas of a sequence Transformer's decoder (issue 58): its causal self-attention and its
// cross-attention, recorded on the model's own translation, whose most attended keys equal the
// Sequences page's maps of the same sentence; and the atlas of inputs the user names (--dataset):
// a file of sentences, another image dataset, with bad ones refused in one line.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "analysis/atlas/atlas.h"
#include "data/seq_task.h"
#include "models/seq/seq_model.h"

using namespace saccade;

namespace {

std::string modelFile(const std::string& name) { return std::string(SACCADE_SAMPLES_DIR) + "/models/" + name; }

std::string writeTempFile(const std::string& name, const std::string& text) {
    const auto path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream(path) << text;
    return path;
}

// The argmax of each row of the translation's map `name`.
std::vector<int> rowArgmax(const SeqTranslation& t, const std::string& name) {
    for (const auto& m : t.maps)
        if (m.name == name) {
            std::vector<int> out;
            for (const auto& row : m.weights) out.push_back(int(std::max_element(row.begin(), row.end()) - row.begin()));
            return out;
        }
    ADD_FAILURE() << "no map " << name;
    return {};
}

// Per input, per query position: the key it attends to most.
std::map<int, std::map<int, int>> attendedBy(const Atlas& a) {
    std::map<int, std::map<int, int>> out;
    for (const auto& p : a.points)
        if (p.query) out[p.input][p.position] = p.attends;
    return out;
}

}  // namespace

TEST(AtlasDecoder, CausalQueriesAttendAsTheSequencesPagesDecoderMap) {
    const auto path = modelFile("seq-dates-transformer.pt");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.attention = "decoder";
    o.limit = 5;
    o.layer = 2;
    o.head = 3;
    o.embedding.method = "pca";
    auto a = buildAtlas(path, o);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->modelLayer, "decoder layer 2");
    EXPECT_EQ(a->attention, "decoder");
    ASSERT_EQ(a->decoderTokens.size(), 5u);
    auto model = SeqModel::open(path, "cpu");
    ASSERT_TRUE(model.ok());
    const auto attended = attendedBy(*a);
    int queries = 0;
    for (int i = 0; i < 5; ++i) {
        auto t = (*model)->translate(a->sentences[std::size_t(i)]);
        ASSERT_TRUE(t.ok());
        // The decoder's positions read "<s>" and the translation but its last token (</s>).
        std::vector<std::string> reads{"<s>"};
        reads.insert(reads.end(), t->tokens.begin(), t->tokens.end() - 1);
        EXPECT_EQ(a->decoderTokens[std::size_t(i)], reads);
        const auto page = rowArgmax(*t, "decoder layer 2 head 3");
        ASSERT_EQ(attended.at(i).size(), page.size());
        for (const auto& [position, key] : attended.at(i)) {
            EXPECT_LE(key, position) << "a causal query reads no later key";
            EXPECT_EQ(key, page[std::size_t(position)]) << "input " << i << " position " << position;
            ++queries;
        }
    }
    for (const auto& p : a->points) {
        EXPECT_EQ(p.label, a->decoderTokens[std::size_t(p.input)][std::size_t(p.position)]);
        if (p.position == 0) {
            EXPECT_EQ(p.label, "<s>");
        }
    }
    EXPECT_EQ(a->points.size(), 2u * std::size_t(queries));  // queries and keys are the same positions
    const auto j = nlohmann::json::parse(atlasToJson(*a));
    EXPECT_EQ(j["attention"], "decoder");
    EXPECT_EQ(j["layer_name"], "seq-dates-transformer.pt decoder layer 2");
}

TEST(AtlasDecoder, CrossQueriesAreTheDecodersAndKeysTheSources) {
    const auto path = modelFile("seq-dates-transformer.pt");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.attention = "cross";
    o.limit = 4;
    o.layer = 1;
    o.head = 2;
    o.embedding.method = "pca";
    auto a = buildAtlas(path, o);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->modelLayer, "cross layer 1");
    auto model = SeqModel::open(path, "cpu");
    ASSERT_TRUE(model.ok());
    const auto task = openSeqTask("dates");
    ASSERT_TRUE(task.ok());
    const auto attended = attendedBy(*a);
    std::size_t queries = 0, keys = 0;
    for (int i = 0; i < 4; ++i) {
        const auto source = (*task)->sample(Split::Test, i, kSeqTestSeed).source;
        auto t = (*model)->translate(a->sentences[std::size_t(i)]);
        ASSERT_TRUE(t.ok());
        const auto page = rowArgmax(*t, "cross layer 1 head 2");
        ASSERT_EQ(attended.at(i).size(), page.size());
        for (const auto& [position, key] : attended.at(i)) EXPECT_EQ(key, page[std::size_t(position)]);
        for (const auto& p : a->points) {
            if (p.input != i) continue;
            (p.query ? queries : keys) += 1;
            if (p.query) EXPECT_EQ(p.label, a->decoderTokens[std::size_t(i)][std::size_t(p.position)]);
            else EXPECT_EQ(p.label, source[std::size_t(p.position)]);  // the keys are the source's characters
        }
        (void)source;
    }
    EXPECT_NE(queries, keys);  // a date's written form and its ISO form differ in length
    const auto offsets = atlasOffsets(*a);
    EXPECT_FALSE(offsets.positional);
    EXPECT_EQ(offsets.queries, int(queries));
    EXPECT_GT(offsets.chanceIsAttended, 0.0);
    EXPECT_LT(offsets.chanceIsAttended, 0.2);  // one key of a dozen or more
}

TEST(AtlasDecoder, ASentenceFileIsReadAsTheModelsOwnSentences) {
    const auto path = modelFile("seq-dates-transformer.pt");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no bundled models";
    const auto task = openSeqTask("dates");
    ASSERT_TRUE(task.ok());
    std::string text = "# three test sentences\n";
    for (int i = 0; i < 3; ++i) text += (*task)->detokenize((*task)->sample(Split::Test, i, kSeqTestSeed).source) + "\n\n";
    AtlasOptions o;
    o.limit = 3;
    o.embedding.method = "pca";
    auto own = buildAtlas(path, o);
    o.dataset = writeTempFile("saccade-atlas-sentences.txt", text);
    auto file = buildAtlas(path, o);
    ASSERT_TRUE(own.ok() && file.ok()) << file.error();
    EXPECT_EQ(file->sentences, own->sentences);
    EXPECT_EQ(file->dataset, o.dataset);
    // One sentence at a time, or the evaluation's batches: the same queries attend to the same keys.
    EXPECT_EQ(attendedBy(*file), attendedBy(*own));
    ASSERT_EQ(file->points.size(), own->points.size());
    for (std::size_t i = 0; i < own->points.size(); ++i) EXPECT_EQ(file->points[i].label, own->points[i].label);
    o.limit = 2;
    auto fewer = buildAtlas(path, o);
    ASSERT_TRUE(fewer.ok());
    EXPECT_EQ(fewer->inputs, 2);
}

TEST(AtlasDecoder, BadDataAndAttentionAreOneLine) {
    const auto seq = modelFile("seq-dates-transformer.pt"), vit = modelFile("vit-translated-fashion60.pt");
    if (!std::filesystem::exists(seq)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.limit = 2;
    o.embedding.method = "pca";
    const auto task = openSeqTask("dates");
    ASSERT_TRUE(task.ok());
    const auto first = (*task)->detokenize((*task)->sample(Split::Test, 0, kSeqTestSeed).source);
    o.dataset = writeTempFile("saccade-atlas-unknown.txt", first + "\nm\xC3\xA4rz 3 2001\n");
    EXPECT_EQ(buildAtlas(seq, o).error(), o.dataset + ":2: the model's source vocabulary has no '\xC3\xA4'");
    o.dataset = writeTempFile("saccade-atlas-empty.txt", "# nothing\n\n");
    EXPECT_EQ(buildAtlas(seq, o).error(), o.dataset + " holds no sentences (one per line)");
    o.dataset = "translated-fashion60";
    EXPECT_EQ(buildAtlas(seq, o).error(),
              "--dataset translated-fashion60: give a text file of sentences (one per line) or this model's task, dates");
    o.dataset = "dates";
    EXPECT_TRUE(buildAtlas(seq, o).ok());
    o.dataset.clear();
    o.attention = "keys";
    EXPECT_EQ(buildAtlas(seq, o).error(), "--attention must be encoder, decoder or cross, got 'keys'");
    o.attention = "cross";
    EXPECT_EQ(buildAtlas(vit, o).error(), vit + " is a vision transformer: its attention is the encoder's self-attention only");
    o.attention = "decoder";
    o.layer = 3;
    EXPECT_EQ(buildAtlas(seq, o).error(), "--layer must be 1-2 (the model has 2 layers)");
}

TEST(AtlasDecoder, TheViTReadsAnotherDatasetFittedToIt) {
    const auto vit = modelFile("vit-translated-fashion60.pt");
    if (!std::filesystem::exists(vit)) GTEST_SKIP() << "no bundled models";
    AtlasOptions o;
    o.limit = 2;
    o.layer = 1;
    o.head = 1;
    o.embedding.method = "pca";
    o.dataset = "translated-digits60";  // procedural: no Fashion-MNIST needed
    auto a = buildAtlas(vit, o);
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_EQ(a->dataset, "translated-digits60");
    EXPECT_EQ(a->points.size(), 2u * 2 * 37);
    o.dataset = "digits28";  // 28x28 images, resized to the ViT's 60x60 as any command does
    auto resized = buildAtlas(vit, o);
    ASSERT_TRUE(resized.ok()) << resized.error();
    EXPECT_EQ(resized->points.size(), 2u * 2 * 37);
    o.dataset = "no-such-data";
    const auto bad = buildAtlas(vit, o);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().find('\n'), std::string::npos);
    EXPECT_NE(bad.error().find("no-such-data"), std::string::npos) << bad.error();
}
