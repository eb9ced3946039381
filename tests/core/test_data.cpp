#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <torch/torch.h>
#include <zlib.h>

#include "common/atomic_file.h"
#include "data/batch.h"
#include "data/canvas.h"
#include "data/contact_sheet.h"
#include "data/dataset.h"
#include "data/fashion_mnist.h"
#include "data/idx_reader.h"
#include "data/probes.h"

#include "temp_dir.h"

using namespace saccade;
using saccade::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kFashion = "/usr/share/datasets/fashion-mnist";
bool haveFashion() { return fs::exists(kFashion + "/t10k-images-idx3-ubyte.gz"); }

// A source whose item i is a 10 x 6 block of ink at (5 + i % 3, 9) in a 28 x 28 image.
class BlockSource : public ObjectSource {
public:
    std::string name() const override { return "blocks"; }
    std::int64_t size(Split s) const override { return s == Split::Train ? 30 : 20; }
    Image image(Split s, std::int64_t i) const override {
        Image img = Image::zeros(28, 28);
        for (int y = 9; y < 15; ++y)
            for (int x = 0; x < 10; ++x) img.at(5 + int(i % 3) + x, y) = s == Split::Train ? 200 : 100;
        return img;
    }
    int label(Split, std::int64_t i) const override { return int(i % 10); }
    std::vector<std::string> classNames() const override { return {}; }
};


void writeGz(const std::string& path, const std::string& bytes) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
}

std::string idxHeader(std::uint8_t rank, std::vector<std::uint32_t> dims) {
    std::string h = {0, 0, 8, static_cast<char>(rank)};
    for (auto d : dims)
        for (int s = 24; s >= 0; s -= 8) h += static_cast<char>((d >> s) & 0xff);
    return h;
}

}  // namespace

TEST(Idx, RealFashionMnistFiles) {
    if (!haveFashion()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
    auto f = FashionMnist::load(kFashion);
    ASSERT_TRUE(f.ok()) << f.error();
    EXPECT_EQ((*f)->size(Split::Train), 60000);
    EXPECT_EQ((*f)->size(Split::Test), 10000);
    const auto img = (*f)->image(Split::Test, 0);
    EXPECT_EQ(img.width, 28);
    EXPECT_EQ(img.height, 28);
    std::vector<int> seen(10, 0);
    for (std::int64_t i = 0; i < 10000; ++i) ++seen.at((*f)->label(Split::Test, i));
    for (int c = 0; c < 10; ++c) EXPECT_EQ(seen[c], 1000) << "class " << c;  // balanced test split
    EXPECT_EQ((*f)->label(Split::Test, 0), 9);  // the first test item is an ankle boot
    EXPECT_EQ((*f)->classNames()[9], "Ankle boot");
}

TEST(Idx, TruncatedCorruptAndWrongFilesAreNamed) {
    TempDir dir;
    writeGz(dir.file("short.gz"), idxHeader(1, {100}) + std::string(40, '\1'));
    EXPECT_NE(readIdxFile(dir.file("short.gz"), 1).error().find("truncated: 40 of 100"),
              std::string::npos);
    writeGz(dir.file("extra.gz"), idxHeader(1, {4}) + std::string(6, '\1'));
    EXPECT_NE(readIdxFile(dir.file("extra.gz"), 1).error().find("trailing bytes"), std::string::npos);
    writeGz(dir.file("rank.gz"), idxHeader(3, {1, 2, 2}) + std::string(4, '\0'));
    EXPECT_NE(readIdxFile(dir.file("rank.gz"), 1).error().find("3 dimensions, expected 1"),
              std::string::npos);
    writeGz(dir.file("magic.gz"), std::string("\x00\x00\x0d\x01", 4) + std::string(8, '\0'));
    EXPECT_NE(readIdxFile(dir.file("magic.gz"), 1).error().find("not an unsigned-byte IDX"),
              std::string::npos);
    EXPECT_NE(readIdxFile(dir.file("missing.gz"), 1).error().find("cannot open"), std::string::npos);
    writeGz(dir.file("ok.gz"), idxHeader(1, {3}) + std::string("\1\2\3"));
    EXPECT_EQ(readIdxFile(dir.file("ok.gz"), 1)->data, (std::vector<std::uint8_t>{1, 2, 3}));

    if (!haveFashion()) return;
    // A real file cut in half, and one with its compressed bytes scrambled.
    auto bytes = *readFile(kFashion + "/t10k-labels-idx1-ubyte.gz");
    ASSERT_TRUE(writeFileAtomic(dir.file("cut.gz"), bytes.substr(0, bytes.size() / 2)).ok());
    const auto cut = readIdxFile(dir.file("cut.gz"), 1);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().find("cut.gz"), std::string::npos) << cut.error();
    for (std::size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) bytes[i] ^= 0x5a;
    ASSERT_TRUE(writeFileAtomic(dir.file("scrambled.gz"), bytes).ok());
    const auto scrambled = readIdxFile(dir.file("scrambled.gz"), 1);
    ASSERT_FALSE(scrambled.ok());
    EXPECT_NE(scrambled.error().find("corrupt"), std::string::npos) << scrambled.error();
}

TEST(Idx, MissingDatasetNamesThePackage) {
    const auto r = FashionMnist::load("/nonexistent/fashion");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("apt-get install dataset-fashion-mnist"), std::string::npos);
    const auto d = openDataset("cluttered-fashion60", {"/nonexistent/fashion", 1});
    EXPECT_NE(d.error().find("dataset-fashion-mnist"), std::string::npos);
}

TEST(Canvas, BoxMatchesThePlacedPixels) {
    BlockSource source;
    CanvasOptions o;
    o.size = 60;
    for (std::int64_t i = 0; i < 20; ++i) {
        const auto s = composeCanvas(source, Split::Test, i, o);
        ASSERT_EQ(s.image.width, 60);
        EXPECT_EQ(s.box.w, 10);
        EXPECT_EQ(s.box.h, 6);
        EXPECT_EQ(s.label, int(i % 10));
        for (int y = 0; y < 60; ++y)
            for (int x = 0; x < 60; ++x) {
                const bool inside = x >= s.box.x && x < s.box.x + s.box.w && y >= s.box.y &&
                                    y < s.box.y + s.box.h;
                ASSERT_EQ(s.image.at(x, y), inside ? 100 : 0) << "sample " << i << " at " << x << "," << y;
            }
    }
}

TEST(Canvas, ClutterAndDeterminism) {
    BlockSource source;
    CanvasOptions o;
    o.size = 100;
    o.distractors = 8;
    const auto a = composeCanvas(source, Split::Train, 3, o);
    const auto b = composeCanvas(source, Split::Train, 3, o);
    EXPECT_EQ(a.image.pixels, b.image.pixels);
    EXPECT_EQ(a.box, b.box);
    ASSERT_EQ(a.distractors.size(), 8u);
    for (const auto& d : a.distractors) {
        EXPECT_EQ(d.w, 8);
        EXPECT_GE(d.x, 0);
        EXPECT_LE(d.x + d.w, 100);
    }
    EXPECT_NE(composeCanvas(source, Split::Train, 4, o).image.pixels, a.image.pixels);
    o.seed = 2;
    EXPECT_NE(composeCanvas(source, Split::Train, 3, o).image.pixels, a.image.pixels);
}

TEST(Dataset, DeterministicAcrossOpensAndSplitsDiffer) {
    for (const char* name : {"cluttered-digits60", "scenes64"}) {
        const auto a = *openDataset(name, {"", 5});
        const auto b = *openDataset(name, {"", 5});
        const auto c = *openDataset(name, {"", 6});
        EXPECT_EQ(a->sample(Split::Test, 17).image.pixels, b->sample(Split::Test, 17).image.pixels) << name;
        EXPECT_NE(a->sample(Split::Test, 17).image.pixels, c->sample(Split::Test, 17).image.pixels) << name;
        EXPECT_NE(a->sample(Split::Train, 17).image.pixels, a->sample(Split::Test, 17).image.pixels) << name;
    }
    EXPECT_NE(openDataset("mnist").error().find("unknown dataset 'mnist'"), std::string::npos);
    EXPECT_EQ(datasetNames().size(), 11u);
}

TEST(Dataset, FashionCanvasesHoldTheRealItem) {
    if (!haveFashion()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
    const auto d = *openDataset("translated-fashion60", {kFashion, 1});
    const auto f = *FashionMnist::load(kFashion);
    const auto s = d->sample(Split::Test, 42);
    EXPECT_EQ(s.label, f->label(Split::Test, 42));
    const auto item = f->image(Split::Test, 42);
    const auto ink = inkBox(item, 0, 0, 28, 28, 0, 0);
    // The item's top-left ink pixel sits at the box's top-left on the canvas.
    const int ox = int(s.box.x - ink.x), oy = int(s.box.y - ink.y);
    for (int y = 0; y < 28; ++y)
        for (int x = 0; x < 28; ++x) ASSERT_EQ(s.image.at(ox + x, oy + y), item.at(x, y));
    EXPECT_EQ(d->info().trainSize, 60000);
}

TEST(Probes, OffsetsAreExact) {
    ProbeOptions o;
    o.canvas = 60;
    o.cellSize = 12;
    o.objectSize = 6;
    o.dxMin = -6;
    o.dxMax = 6;
    o.dyMin = -2;
    o.dyMax = 2;
    EXPECT_EQ(probeAnchor(60, 12, 0), 36);  // centre 30 is 2.5 cells: the tie rounds up
    EXPECT_EQ(probeAnchor(60, 10, 3), 33);
    const auto probes = makeProbes(o, nullptr);
    ASSERT_TRUE(probes.ok()) << probes.error();
    ASSERT_EQ(probes->size(), 13u * 5u);
    const int anchor = probeAnchor(60, 12, 0);
    for (const auto& p : *probes) {
        EXPECT_EQ(p.sample.box, (Box{double(anchor + p.dx), double(anchor + p.dy), 6, 6}));
        const auto ink = inkBox(p.sample.image, 0, 0, 60, 60, 0, 0);
        EXPECT_EQ(ink, p.sample.box) << "dx=" << p.dx << " dy=" << p.dy;
    }
    o.dxMax = 40;
    EXPECT_NE(makeProbes(o, nullptr).error().find("offset (40, -2) puts the object outside"),
              std::string::npos);
}

TEST(Probes, ClutterIsFixedAcrossTheSweepAndAvoidsIt) {
    BlockSource source;
    ProbeOptions o;
    o.distractors = 4;
    o.object = ProbeObject::Item;
    o.itemIndex = 1;
    const auto probes = *makeProbes(o, &source);
    EXPECT_EQ(probes.front().sample.distractors, probes.back().sample.distractors);
    EXPECT_EQ(probes.front().sample.label, 1);
    const Box swept{36.0 - 6, 36.0, 12 + 6, 6};
    for (const auto& d : probes.front().sample.distractors) EXPECT_EQ(d.intersectionArea(swept), 0);
    EXPECT_NE(makeProbes(o, nullptr).error().find("need an object source"), std::string::npos);
}

TEST(Batch, TensorsMatchSamplesInAnyThreadCount) {
    const auto d = *openDataset("cluttered-digits60", {"", 1});
    const std::vector<std::int64_t> idx = {0, 5, 9, 200, 3};
    const auto one = [&] {
        at::set_num_threads(1);
        return makeBatch(*d, Split::Train, idx, torch::kCPU);
    }();
    at::set_num_threads(2);
    const auto two = makeBatch(*d, Split::Train, idx, torch::kCPU);
    EXPECT_EQ(one.images.sizes(), (std::vector<std::int64_t>{5, 1, 60, 60}));
    EXPECT_TRUE(torch::equal(one.images, two.images));
    const auto s = d->sample(Split::Train, 200);
    EXPECT_EQ(one.labels[3].item<std::int64_t>(), s.label);
    EXPECT_FLOAT_EQ(one.boxes[3][0].item<float>(), float(s.box.x));
    EXPECT_FLOAT_EQ(one.images[3][0][int(s.box.y + 2)][int(s.box.x + 2)].item<float>(),
                    s.image.at(int(s.box.x + 2), int(s.box.y + 2)) / 255.0f);
    EXPECT_LE(one.images.max().item<float>(), 1.0f);
}

TEST(ContactSheet, TilesAndBoxesLandWhereExpected) {
    BlockSource source;
    CanvasOptions o;
    o.size = 60;
    std::vector<Sample> samples = {composeCanvas(source, Split::Test, 0, o),
                                   composeCanvas(source, Split::Test, 1, o)};
    ContactSheetOptions co;
    co.columns = 2;
    co.tileSize = 120;  // scale 2
    const auto sheet = contactSheet(samples, {"a", "b"}, co);
    EXPECT_EQ(sheet.channels, 3);
    EXPECT_EQ(sheet.width, 2 * (120 + 6) + 6);
    // The green box's top-left corner: tile origin (6, 6) plus 2 x the box corner.
    const auto& b = samples[0].box;
    const int x = 6 + int(b.x * 2), y = 6 + int(b.y * 2);
    EXPECT_EQ(sheet.at(x, y, 1), 230);
    EXPECT_LT(sheet.at(x, y, 0), 100);
}
