#pragma once
// A dataset seen through a model's input fit (data/image_fit.h): each sample's image resized and
// cropped, in the model's channel count, and its boxes moved with the pixels. A model that takes
// 224x224 images then reads translated-fashion60 as 224x224 images with their boxes.

#include <memory>

#include "data/dataset.h"
#include "data/image_fit.h"

namespace saccade {

/// `dataset` as images of fit's crop size with `channels` channels; the dataset itself when its
/// images have that shape already. An Error when the fit has no crop, or cannot fit its images
/// (an image smaller than the crop, with no resize).
Result<std::shared_ptr<const Dataset>> fittedDataset(std::shared_ptr<const Dataset> dataset, const ImageFit& fit, int channels);

}  // namespace saccade
