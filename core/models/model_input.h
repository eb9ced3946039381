#pragma once
// What every loaded model does with its inputs and outputs: check an image or a dataset against
// the model's input shape, turn an image into a [1, C, H, W] tensor in [0, 1], read a tensor
// back as floats, name the classes of the sidecar's dataset, and record a batch of runs. Engine header: LibTorch.

#include <string>
#include <vector>

#include <torch/types.h>

#include "common/rng.h"
#include "trace/run_set.h"
#include "common/atomic_file.h"
#include "common/result.h"
#include "data/dataset.h"
#include "data/image.h"
#include "trace/trace.h"

namespace saccade {

class AttentionModel;

/// The image as a [1, C, H, W] float tensor in [0, 1] on `device`, or an error naming the
/// expected and the actual shape.
Result<torch::Tensor> modelInput(const Image& image, int size, int channels, const torch::Device& device);

/// The random streams of an evaluation batch of images first..first+count-1: one per image,
/// seeded with evaluationSeed (models/attention_model.h), so each image draws what its own trace does.
Rng evaluationRng(std::uint64_t seed, std::int64_t first, std::size_t count);

/// An error when the dataset's images do not fit a model of this size and channel count.
Result<Unit> checkDatasetFits(const DatasetInfo& info, int size, int channels);

/// A tensor's values as floats (any device, any dtype).
std::vector<float> toFloatVector(const torch::Tensor& tensor);
/// One record per run of a batch: its seed, and from `logits` [N, C] and `logProb` [T, N] its
/// output distribution and class, that class's probability and the summed log-probability of its choices. The
/// model adds its own per-step fields.
std::vector<RunRecord> runRecords(const std::vector<std::uint64_t>& seeds, const torch::Tensor& logits,
                                  const torch::Tensor& logProb);
/// Appends an integer tensor's values (any device) to `out`.
void appendInts(std::vector<int>& out, const torch::Tensor& values);

/// An image of any size, with its ground truth, as `model` takes it: given the model's channel
/// count, resized and cropped by its imageFit(), boxes moved with the pixels. An image already of
/// the model's size is returned as it is. Errors name the image's size and the fit.
struct FittedImage {
    Image image;
    std::optional<GroundTruth> truth;
};
Result<FittedImage> fitToModel(const AttentionModel& model, const Image& image,
                               const std::optional<GroundTruth>& truth = std::nullopt);
/// The same for a model known by what it declares: its side (0: any size), channel count and fit
/// (the GUI holds a model's card, not the model), with the same errors.
Result<FittedImage> fitToInput(const Image& image, int side, int channels, const ImageFit& fit,
                               const std::optional<GroundTruth>& truth = std::nullopt);

/// The options to open a dataset or image folder for `model`: its seed, its class names (folders
/// name their classes after them) and its fit (folders of any image size).
DatasetOptions datasetOptionsFor(const AttentionModel& model);

/// Opens dataset or image folder `name` for `model` (datasetOptionsFor, with the dataset's `seed`),
/// its images fitted to the model's input (data/fitted_dataset.h) when they have another size or
/// channel count.
Result<std::shared_ptr<const Dataset>> openDatasetFor(const AttentionModel& model, const std::string& name, std::uint64_t seed);

/// The class names of a registered dataset; empty when it cannot be opened.
std::vector<std::string> datasetClassNames(const std::string& dataset);

}  // namespace saccade
