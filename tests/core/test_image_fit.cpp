// A model of one's own with the preprocessing users know: images of any size resized and
// centre-cropped (data/image_fit.h), boxes moved with them, folders of mixed sizes, a dataset of
// another size fitted to the model, and an imported model's resize, center_crop, mean "imagenet"
// and prefix_tokens settings, with the user's overrides and every bad combination named.

#include <filesystem>

#include <gtest/gtest.h>
#include <torch/script.h>

#include "data/dataset.h"
#include "data/fitted_dataset.h"
#include "data/image_fit.h"
#include "data/image_io.h"
#include "models/attention_model.h"
#include "models/model_input.h"
#include "temp_dir.h"

namespace saccade {
namespace {

// A 2-column image: its left half black, its right half white, `w` x `h`.
Image halves(int w, int h, int channels = 1) {
    Image im = Image::zeros(w, h, channels);
    for (int y = 0; y < h; ++y)
        for (int x = w / 2; x < w; ++x)
            for (int c = 0; c < channels; ++c) im.at(x, y, c) = 255;
    return im;
}

TEST(ImageFit, ResizesTheShorterSideThenCropsTheCentre) {
    // 451x300 (scikit-image's cat) with torchvision's Resize(256), CenterCrop(224).
    const auto g = fitGeometry(451, 300, {256, 224, 224});
    EXPECT_EQ(g.resizedHeight, 256);
    EXPECT_EQ(g.resizedWidth, 385);  // 451 * 256 / 300 = 384.9
    EXPECT_EQ(g.cropX, (385 - 224) / 2);
    EXPECT_EQ(g.cropY, 16);
    auto fitted = fitImage(halves(451, 300, 3), {256, 224, 224});
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    EXPECT_EQ(fitted->width, 224);
    EXPECT_EQ(fitted->height, 224);
    EXPECT_EQ(fitted->channels, 3);
    // The boundary between the halves was at x = 225.5 of 451: at 192.5 - 80 = 112.5 of the crop.
    EXPECT_EQ(fitted->at(100, 50, 0), 0);
    EXPECT_EQ(fitted->at(125, 50, 0), 255);
    // A box moves with the pixels and is cut to the crop.
    const auto box = g.map(Box{0, 0, 451, 150});
    ASSERT_TRUE(box.has_value());
    EXPECT_DOUBLE_EQ(box->x, 0);
    EXPECT_NEAR(box->h, 128 - 16, 1e-9);
    EXPECT_FALSE(g.map(Box{0, 0, 20, 20}).has_value());  // cropped away
    // An image of the crop's size is left as it is.
    const auto same = halves(224, 224);
    EXPECT_EQ(fitImage(same, {256, 224, 224})->pixels, same.pixels);
    EXPECT_EQ(describeFit({256, 224, 224}), "resize 256, centre crop 224");
    EXPECT_EQ(describeFit({0, 160, 224}), "centre crop 160x224");
}

TEST(ImageFit, BadFitsAndSmallImagesAreNamed) {
    auto larger = checkImageFit({200, 224, 224});
    ASSERT_FALSE(larger.ok());
    EXPECT_EQ(larger.error(), "the centre crop 224 is larger than the resize 200 (the shorter side after resizing)");
    EXPECT_FALSE(checkImageFit({-1, 0, 0}).ok());
    EXPECT_FALSE(checkImageFit({0, 10, 0}).ok());
    auto small = fitImage(halves(100, 80), {0, 96, 96});
    ASSERT_FALSE(small.ok());
    EXPECT_NE(small.error().find("smaller than the centre crop 96x96 (give a resize)"), std::string::npos) << small.error();
    EXPECT_EQ(withChannels(halves(4, 4, 3), 1).channels, 1);
    EXPECT_EQ(withChannels(halves(4, 4, 3), 1).at(3, 0), 255);
    EXPECT_EQ(withChannels(halves(4, 4, 1), 3).at(3, 0, 2), 255);
}

TEST(ImageFit, FoldersOfMixedSizesOpenWithAFit) {
    test::TempDir dir;
    const auto root = dir.path / "photos";
    for (const char* cls : {"cat", "cup"}) std::filesystem::create_directories(root / cls);
    ASSERT_TRUE(saveImagePng(halves(451, 300, 3), (root / "cat" / "wide.png").string()).ok());
    ASSERT_TRUE(saveImagePng(halves(300, 451), (root / "cup" / "tall.png").string()).ok());
    auto unfitted = openDataset(root.string());
    ASSERT_FALSE(unfitted.ok());
    DatasetOptions o;
    o.fit = {64, 56, 56};
    auto fitted = openDataset(root.string(), o);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    EXPECT_EQ((*fitted)->info().width, 56);
    EXPECT_EQ((*fitted)->info().channels, 3);
    const auto tall = (*fitted)->sample(Split::Test, 1);
    EXPECT_EQ(tall.image.width, 56);
    EXPECT_EQ(tall.image.height, 56);
    EXPECT_EQ(tall.label, 1);
    EXPECT_EQ(tall.image.at(5, 28, 0), 0);
    EXPECT_EQ(tall.image.at(50, 28, 0), 255);
    o.fit = {0, 320, 320};  // no resize, and the tall image is 300 wide
    auto small = openDataset(root.string(), o);
    ASSERT_FALSE(small.ok());
    EXPECT_NE(small.error().find("smaller than the model's centre crop 320x320"), std::string::npos) << small.error();
}

TEST(ImageFit, ADatasetOfAnotherSizeIsFittedWithItsBoxes) {
    auto source = openDataset("translated-digits60");
    ASSERT_TRUE(source.ok()) << source.error();
    auto fitted = fittedDataset(*source, squareFit(120), 3);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    const auto a = (*source)->sample(Split::Test, 4), b = (*fitted)->sample(Split::Test, 4);
    EXPECT_EQ(b.image.width, 120);
    EXPECT_EQ(b.image.channels, 3);
    EXPECT_EQ(b.label, a.label);
    EXPECT_DOUBLE_EQ(b.box.x, 2 * a.box.x);
    EXPECT_DOUBLE_EQ(b.box.w, 2 * a.box.w);
    EXPECT_EQ(fittedDataset(*source, squareFit(60), 1)->get(), source->get());  // already the model's shape
    auto tooSmall = fittedDataset(*source, {0, 64, 64}, 1);
    ASSERT_FALSE(tooSmall.ok());
    EXPECT_NE(tooSmall.error().find("smaller than the model's centre crop 64x64"), std::string::npos) << tooSmall.error();
}

// A transformer of `tokens` tokens (uniform attention but for the CLS row, which looks at the
// last token, and token 1's row, which looks at the first patch after the prefix) whose logits
// follow the input's mean, so normalisation shows.
std::string saveTransformer(const test::TempDir& dir, const std::string& name, int tokens,
                            const std::vector<std::pair<std::string, c10::IValue>>& settings) {
    torch::jit::Module m("__torch__.Fit");
    for (const auto& [key, value] : settings) {
        if (value.isInt()) m.register_attribute(key, c10::IntType::get(), value);
        else if (value.isString()) m.register_attribute(key, c10::StringType::get(), value);
        else m.register_attribute(key, c10::ListType::ofInts(), value);
    }
    m.register_attribute("tokens", c10::IntType::get(), std::int64_t(tokens));
    m.define(R"(
def forward(self, x: Tensor) -> Dict[str, Tensor]:
    n = x.size(0)
    t = self.tokens
    a = torch.full([n, 1, 1, t, t], 1.0 / t)
    a[:, :, :, 0] = 0.0
    a[:, :, :, 0, t - 1] = 1.0
    m = x.mean([1, 2, 3])
    return {"logits": torch.stack([m, -m], 1), "attentions": a}
)");
    const auto path = dir.file(name);
    m.save(path);
    return path;
}

TEST(ImportSettings, CenterCropSetsTheInputAndImagenetNormalises) {
    test::TempDir dir;
    const auto path = saveTransformer(dir, "vit.pt", 1 + 16,
                                      {{"resize", std::int64_t(40)}, {"center_crop", std::int64_t(32)}, {"mean", std::string("imagenet")}});
    auto model = loadAttentionModel(path, "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_EQ((*model)->imageSize(), 32);
    EXPECT_EQ((*model)->channels(), 3);  // the preset's three means
    EXPECT_EQ((*model)->imageFit(), (ImageFit{40, 32, 32}));
    EXPECT_EQ((*model)->preprocessing(),
              "resize 40, centre crop 32; normalised: imagenet (mean 0.485,0.456,0.406, std 0.229,0.224,0.225)");
    // A 90x60 photo comes in resized to 60x40, then cut to 32x32; the map's last patch is the CLS's choice.
    auto fitted = fitToModel(**model, halves(90, 60, 3));
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    auto trace = (*model)->trace(fitted->image, "attention", 1, "photo");
    ASSERT_TRUE(trace.ok()) << trace.error();
    EXPECT_NEAR(trace->steps[0].grid->probs.back(), 1.0, 1e-6);
    // Logits of a grey 0.5 image: the mean of (0.5 - mean) / std over the channels.
    auto grey = Image::zeros(32, 32, 3);
    std::fill(grey.pixels.begin(), grey.pixels.end(), 128);
    auto t = (*model)->trace(grey, "attention", 1, "grey");
    ASSERT_TRUE(t.ok());
    const double expected = ((128 / 255.0 - 0.485) / 0.229 + (128 / 255.0 - 0.456) / 0.224 + (128 / 255.0 - 0.406) / 0.225) / 3;
    EXPECT_NEAR(std::log(t->output.probs[0] / t->output.probs[1]), 2 * expected, 1e-4);
}

TEST(ImportSettings, PrefixTokensAndOverrides) {
    test::TempDir dir;
    // CLS + 4 registers + a 4x4 grid: 21 tokens, refused until the prefix is declared.
    const auto plain = saveTransformer(dir, "reg.pt", 21, {{"input_size", std::int64_t(16)}});
    auto refused = loadAttentionModel(plain, "cpu");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("declare prefix_tokens"), std::string::npos) << refused.error();
    const auto declared = saveTransformer(dir, "reg5.pt", 21, {{"input_size", std::int64_t(16)}, {"prefix_tokens", std::int64_t(5)}});
    auto model = loadAttentionModel(declared, "cpu");
    ASSERT_TRUE(model.ok()) << model.error();
    EXPECT_NE((*model)->summary().find("4x4 patches + 5 prefix tokens (read-out 0)"), std::string::npos) << (*model)->summary();
    auto t = (*model)->trace(halves(16, 16), "attention", 1, "x");
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->steps[0].grid->probs.size(), 16u);
    EXPECT_NEAR(t->steps[0].grid->probs.back(), 1.0, 1e-6);

    // The user's resize and crop over the file's: a crop sets the input without probing.
    InputOverrides input;
    input.resize = 24;
    input.crop = std::pair<int, int>{16, 16};
    input.mean = {0.5f};
    input.std = {0.25f};
    auto over = loadAttentionModel(declared, "cpu", input);
    ASSERT_TRUE(over.ok()) << over.error();
    EXPECT_EQ((*over)->imageFit(), (ImageFit{24, 16, 16}));
    EXPECT_EQ((*over)->preprocessing(), "resize 24, centre crop 16; normalised: mean 0.5, std 0.25");

    // What cannot work is one line each.
    auto tooManyPrefix = loadAttentionModel(saveTransformer(dir, "p.pt", 21, {{"input_size", std::int64_t(16)}, {"prefix_tokens", std::int64_t(30)}}), "cpu");
    ASSERT_FALSE(tooManyPrefix.ok());
    EXPECT_NE(tooManyPrefix.error().find("prefix_tokens 30 leaves no patches of the 21 tokens"), std::string::npos) << tooManyPrefix.error();
    auto cropOverResize = loadAttentionModel(saveTransformer(dir, "c.pt", 17, {{"resize", std::int64_t(24)}, {"center_crop", std::int64_t(32)}}), "cpu");
    ASSERT_FALSE(cropOverResize.ok());
    EXPECT_NE(cropOverResize.error().find("the centre crop 32 is larger than the resize 24"), std::string::npos) << cropOverResize.error();
    auto parsed = parseInputOverrides("200", "224", "", "");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error(), "--center-crop 224 is larger than --resize 200");
    EXPECT_FALSE(parseInputOverrides("", "", "0.5", "").ok());
    EXPECT_FALSE(parseInputOverrides("", "", "0.5", "-1").ok());
    EXPECT_FALSE(parseInputOverrides("12abc", "", "", "").ok());
    EXPECT_FALSE(parseInputOverrides("", "224x", "", "").ok());
    auto preset = parseInputOverrides("", "", "imagenet", "");
    ASSERT_TRUE(preset.ok()) << preset.error();
    EXPECT_EQ(preset->std, kImagenetStd);
}

TEST(ImportSettings, ASaccadeCheckpointTakesAResizeButNoNormalisation) {
    const std::string model = std::string(SACCADE_SAMPLES_DIR) + "/models/patch-soft-fashion60.pt";
    InputOverrides input;
    input.mean = {0.5f};
    input.std = {0.5f};
    auto refused = loadAttentionModel(model, "cpu", input);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("apply to imported TorchScript models"), std::string::npos) << refused.error();
    InputOverrides crop;
    crop.crop = std::pair<int, int>{50, 50};
    auto wrongCrop = loadAttentionModel(model, "cpu", crop);
    ASSERT_FALSE(wrongCrop.ok());
    EXPECT_NE(wrongCrop.error().find("its centre crop must be 60"), std::string::npos) << wrongCrop.error();
    InputOverrides resize;
    resize.resize = 80;
    auto resized = loadAttentionModel(model, "cpu", resize);
    ASSERT_TRUE(resized.ok()) << resized.error();
    EXPECT_EQ((*resized)->imageFit(), (ImageFit{80, 60, 60}));
}

}  // namespace
}  // namespace saccade
