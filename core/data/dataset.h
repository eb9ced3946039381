#pragma once
// The dataset registry: every named dataset, its sizes, and deterministic samples.
//   fashion28                 Fashion-MNIST as it is (28x28)
//   translated-fashion60/100  one item at a random position on a 60x60 / 100x100 canvas
//   cluttered-fashion60/100   the same with 4 / 8 distractors (8x8 crops of other items)
//   digits28, translated-digits60, cluttered-digits60, cluttered-digits100   procedural digits
//   scenes64                  procedural RGB scenes with captions, 1-3 shapes on plain grey
//   scenes96                  harder scenes, 96x96: 2-4 shapes, small ones about 12 px, on a
//                             noisy textured background (see scenes96Options)

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/image_fit.h"
#include "data/sample.h"

namespace saccade {

struct DatasetInfo {
    std::string name;
    std::string description;
    int width = 0, height = 0, channels = 1;
    std::int64_t trainSize = 0, testSize = 0;
    std::vector<std::string> classNames;
};

struct DatasetOptions {
    std::string fashionDir;  ///< empty: $SACCADE_FASHION_MNIST or the Debian package's folder
    std::uint64_t seed = 1;  ///< sample i of a split with seed s is always the same image
    /// Image folders: the model's class names, so that a class folder named after one of them
    /// (or after its index) gets that class's label. Empty: the folders' name order.
    std::vector<std::string> classNames;
    /// Image folders: how each image becomes the model's input (data/image_fit.h). With a crop,
    /// the images may have any size; without one, they must all have the same square size.
    ImageFit fit;
    /// Image folders: the labels mean nothing to the model (a captioner): the subfolders are
    /// groups of images, one is enough, and their names are not checked against classNames.
    bool unlabelled = false;
};

/// A named dataset. Thread-safe for const calls; cheap to share.
class Dataset {
public:
    virtual ~Dataset() = default;
    virtual const DatasetInfo& info() const = 0;
    /// Any index >= 0: the split's size counts distinct items, and index i + size holds the same
    /// item as i, placed anew on canvas datasets (with other distractors) and a new scene for
    /// the scenes datasets. Training uses this for fresh canvases on every pass.
    virtual Sample sample(Split split, std::int64_t index) const = 0;
    /// The object source behind the dataset (items and clutter for probes); null for scenes.
    virtual const ObjectSource* objectSource() const = 0;
    std::int64_t size(Split split) const {
        return split == Split::Train ? info().trainSize : info().testSize;
    }
};

/// The registered names with their descriptions, in listing order.
std::vector<std::pair<std::string, std::string>> datasetNames();

struct DatasetShape {
    int width = 0, height = 0, channels = 1;
};
/// The image shape of a registered dataset without opening it; nullopt for an unknown name.
std::optional<DatasetShape> datasetShape(const std::string& name);

/// Opens a dataset by name, or an existing folder as an image folder (data/folder_dataset.h).
/// Errors: an unknown name (listing the known ones), Fashion-MNIST missing or broken (naming the
/// package to install), a folder that breaks the layout.
Result<std::shared_ptr<const Dataset>> openDataset(const std::string& name,
                                                   const DatasetOptions& options = {});

/// "train" or "test".
Result<Split> parseSplit(const std::string& name);

}  // namespace saccade
