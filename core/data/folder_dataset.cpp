#include "data/folder_dataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "common/display_text.h"
#include "data/image_fit.h"
#include "data/image_io.h"

namespace saccade {

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kMaxFolderImages = 200000;

bool isImageFile(const fs::path& p) {
    auto ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    for (const char* e : {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"})
        if (ext == e) return true;
    return false;
}

// A folder is also its own object source: a sweep moves one of its photographs (its luminance,
// probes being grey) across the model's cells.
class FolderDataset : public Dataset, public ObjectSource {
public:
    FolderDataset(DatasetInfo info, std::vector<std::pair<std::string, int>> files, ImageFit fit)
        : m_info(std::move(info)), m_files(std::move(files)), m_fit(fit) {}
    const DatasetInfo& info() const override { return m_info; }
    Sample sample(Split, std::int64_t index) const override {
        const auto& [path, label] = m_files[std::size_t(index % std::int64_t(m_files.size()))];
        Sample s;
        s.label = label;
        ImageLoadOptions o;
        o.channels = m_info.channels;
        // The scan decoded every file; one changed since then gives a black image of the right size.
        auto image = loadImage(path, o);
        if (image && m_fit.cropHeight > 0) image = fitImage(*image, m_fit);
        s.image = image && image->width == m_info.width && image->height == m_info.height
                      ? std::move(image).value()
                      : Image::zeros(m_info.width, m_info.height, m_info.channels);
        return s;
    }
    const ObjectSource* objectSource() const override { return this; }
    std::string name() const override { return m_info.name; }
    std::int64_t size(Split) const override { return std::int64_t(m_files.size()); }
    Image image(Split split, std::int64_t index) const override { return withChannels(sample(split, index).image, 1); }
    int label(Split, std::int64_t index) const override { return m_files[std::size_t(index % std::int64_t(m_files.size()))].second; }
    std::vector<std::string> classNames() const override { return m_info.classNames; }

private:
    DatasetInfo m_info;
    std::vector<std::pair<std::string, int>> m_files;
    ImageFit m_fit;
};

}  // namespace

bool isImageFolder(const std::string& name) {
    std::error_code ec;
    return !name.empty() && fs::is_directory(name, ec);
}

Result<std::shared_ptr<const Dataset>> openImageFolder(const std::string& folder, const std::vector<std::string>& givenNames,
                                                       const ImageFit& fit, bool unlabelled) {
    const std::vector<std::string> classNames = unlabelled ? std::vector<std::string>{} : givenNames;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return Error{"image folder '" + folder + "' does not exist"};
    std::vector<fs::path> classDirs;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.is_directory(ec) && entry.path().filename().string()[0] != '.') classDirs.push_back(entry.path());
    if (ec) return Error{"cannot read image folder '" + folder + "': " + ec.message()};
    std::sort(classDirs.begin(), classDirs.end());
    if (classDirs.size() < 2 && classNames.empty() && !unlabelled)
        return Error{"image folder '" + folder + "' needs one subfolder per class (FOLDER/CLASS/IMAGE.png), at least two; it has " +
                     std::to_string(classDirs.size())};
    if (classDirs.empty())
        return Error{"image folder '" + folder + "' needs one subfolder per class (FOLDER/CLASS/IMAGE.png); it has none"};
    DatasetInfo info;
    info.name = folder;
    auto lower = [](std::string t) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return t;
    };
    // The label of class folder `name`: the model's class it names, or its index.
    auto labelOf = [&](const std::string& name, int position) -> Result<int> {
        if (classNames.empty()) return position;
        for (std::size_t k = 0; k < classNames.size(); ++k)
            if (lower(classNames[k]) == lower(name)) return int(k);
        if (!name.empty() && name.size() < 6 && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
            if (const int k = std::stoi(name); k < int(classNames.size())) return k;
        std::string known;
        for (std::size_t k = 0; k < classNames.size() && k < 12; ++k) known += (k ? ", " : "") + classNames[k];
        return Error{"class folder '" + name + "' of '" + folder + "' names none of the model's classes (" + known +
                     (classNames.size() > 12 ? ", ..." : "") + "; or their index)"};
    };
    if (!classNames.empty()) info.classNames = classNames;
    std::vector<std::pair<std::string, int>> files;
    bool colour = false;
    for (std::size_t k = 0; k < classDirs.size(); ++k) {
        std::vector<fs::path> images;
        for (const auto& entry : fs::directory_iterator(classDirs[k], ec))
            if (entry.is_regular_file(ec) && isImageFile(entry.path())) images.push_back(entry.path());
        if (images.empty())
            return Error{"class folder '" + classDirs[k].string() + "' holds no PNG, JPEG, BMP or TIFF images"};
        std::sort(images.begin(), images.end());
        auto named = checkDisplayText(classDirs[k].filename().string(), "class folder " + std::to_string(k + 1) + "'s name", 200);
        if (!named) return Error{"image folder '" + folder + "': " + named.error()};
        auto label = labelOf(*named, int(k));
        if (!label) return Error{label.error()};
        if (classNames.empty()) info.classNames.push_back(classDirs[k].filename().string());
        for (const auto& p : images) {
            if (files.size() >= kMaxFolderImages)
                return Error{"image folder '" + folder + "' holds more than " + std::to_string(kMaxFolderImages) + " images"};
            auto image = loadImage(p.string());
            if (!image) return Error{image.error()};
            if (fit.cropHeight > 0) {
                if (fit.resize == 0 && (image->width < fit.cropWidth || image->height < fit.cropHeight))
                    return Error{"'" + p.string() + "' is " + std::to_string(image->width) + "x" + std::to_string(image->height) +
                                 ", smaller than the model's centre crop " + std::to_string(fit.cropWidth) + "x" +
                                 std::to_string(fit.cropHeight) + " (give a resize)"};
                info.width = fit.cropWidth;
                info.height = fit.cropHeight;
            } else if (files.empty()) {
                if (image->width != image->height)
                    return Error{"'" + p.string() + "' is " + std::to_string(image->width) + "x" +
                                 std::to_string(image->height) + ": Saccade's models take square images (give the model a resize and centre crop)"};
                info.width = image->width;
                info.height = image->height;
            } else if (image->width != info.width || image->height != info.height) {
                return Error{"'" + p.string() + "' is " + std::to_string(image->width) + "x" + std::to_string(image->height) +
                             " but '" + files.front().first + "' is " + std::to_string(info.width) + "x" +
                             std::to_string(info.height) + ": without a resize and centre crop, every image of a folder must have the same size"};
            }
            colour = colour || image->channels == 3;
            files.push_back({p.string(), *label});
        }
    }
    info.channels = colour ? 3 : 1;
    info.trainSize = info.testSize = std::int64_t(files.size());
    info.description = "image folder: " + std::to_string(files.size()) + " images in " +
                       std::to_string(classDirs.size()) + " class folders";
    return std::shared_ptr<const Dataset>(std::make_shared<FolderDataset>(std::move(info), std::move(files), fit));
}

}  // namespace saccade
