#include "data/batch.h"

#include <cstring>

#include <ATen/Parallel.h>
#include <torch/torch.h>

namespace saccade {

Batch makeBatch(const Dataset& dataset, Split split, const std::vector<std::int64_t>& indices,
                const torch::Device& device, std::vector<Sample>* samples) {
    const auto& info = dataset.info();
    const auto B = static_cast<std::int64_t>(indices.size());
    const int C = info.channels, H = info.height, W = info.width;
    // Samples are written as CHW floats straight into the batch: one allocation, no extra pass.
    auto images = torch::empty({B, C, H, W}, torch::kFloat);
    auto labels = torch::empty({B}, torch::kLong);
    auto boxes = torch::empty({B, 4}, torch::kFloat);
    auto* pix = images.data_ptr<float>();
    auto* lab = labels.data_ptr<std::int64_t>();
    auto* box = boxes.data_ptr<float>();
    const std::size_t stride = static_cast<std::size_t>(H) * W * C;
    if (samples) samples->assign(indices.size(), Sample{});
    at::parallel_for(0, B, /*grain_size=*/8, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t b = begin; b < end; ++b) {
            Sample s = dataset.sample(split, indices[static_cast<std::size_t>(b)]);
            TORCH_CHECK(s.image.pixels.size() == stride, "dataset ", info.name,
                        " produced an image of the wrong size");
            const auto* src = s.image.pixels.data();
            float* dst = pix + b * stride;
            const std::size_t plane = static_cast<std::size_t>(H) * W;
            for (std::size_t p = 0; p < plane; ++p)
                for (int c = 0; c < C; ++c) dst[c * plane + p] = src[p * C + c] * (1.0f / 255.0f);
            lab[b] = s.label;
            const float xywh[4] = {float(s.box.x), float(s.box.y), float(s.box.w), float(s.box.h)};
            std::memcpy(box + b * 4, xywh, sizeof xywh);
            if (samples) (*samples)[static_cast<std::size_t>(b)] = std::move(s);
        }
    });
    Batch batch;
    batch.images = images.to(device);
    batch.labels = labels.to(device);
    batch.boxes = boxes.to(device);
    return batch;
}

}  // namespace saccade
