#include "data/fitted_dataset.h"

namespace saccade {

namespace {

class FittedDataset : public Dataset {
public:
    FittedDataset(std::shared_ptr<const Dataset> inner, const ImageFit& fit, int channels)
        : m_inner(std::move(inner)), m_fit(fit), m_channels(channels), m_info(m_inner->info()) {
        m_info.width = fit.cropWidth;
        m_info.height = fit.cropHeight;
        m_info.channels = channels;
        m_info.description += " (" + describeFit(fit) + ")";
    }
    const DatasetInfo& info() const override { return m_info; }
    Sample sample(Split split, std::int64_t index) const override {
        Sample s = m_inner->sample(split, index);
        const auto geometry = fitGeometry(s.image.width, s.image.height, m_fit);
        auto fitted = fitImage(withChannels(s.image, m_channels), m_fit);
        s.image = fitted ? std::move(fitted).value() : Image::zeros(m_info.width, m_info.height, m_channels);
        auto move = [&](const Box& b) { return geometry.map(b).value_or(Box{}); };
        s.box = move(s.box);
        for (auto& d : s.distractors) d = move(d);
        for (auto& o : s.objects) o.box = move(o.box);
        return s;
    }
    const ObjectSource* objectSource() const override { return m_inner->objectSource(); }

private:
    std::shared_ptr<const Dataset> m_inner;
    ImageFit m_fit;
    int m_channels;
    DatasetInfo m_info;
};

}  // namespace

Result<std::shared_ptr<const Dataset>> fittedDataset(std::shared_ptr<const Dataset> dataset, const ImageFit& fit, int channels) {
    const auto& info = dataset->info();
    if (info.width == fit.cropWidth && info.height == fit.cropHeight && info.channels == channels) return dataset;
    if (fit.cropHeight <= 0) return Error{"dataset " + info.name + ": a fit without a centre crop cannot give one image size"};
    if (auto ok = checkImageFit(fit); !ok) return Error{ok.error()};
    const auto g = fitGeometry(info.width, info.height, fit);
    if (g.resizedWidth < g.width || g.resizedHeight < g.height)
        return Error{"dataset " + info.name + " has " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                     " images, smaller than the model's centre crop " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                     " (give a resize)"};
    return std::shared_ptr<const Dataset>(std::make_shared<FittedDataset>(std::move(dataset), fit, channels));
}

}  // namespace saccade
