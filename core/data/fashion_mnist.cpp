#include "data/fashion_mnist.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

namespace saccade {

namespace {
const std::vector<std::string> kClasses = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                           "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
}

std::string fashionMnistDir(const std::string& dir) {
    if (!dir.empty()) return dir;
    const char* env = std::getenv("SACCADE_FASHION_MNIST");
    return env && *env ? env : kFashionMnistDefaultDir;
}

Result<std::shared_ptr<const FashionMnist>> FashionMnist::load(const std::string& requested) {
    const std::string dir = fashionMnistDir(requested);
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const FashionMnist>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(dir); it != cache.end()) return it->second;

    if (!std::filesystem::is_directory(dir)) {
        return Error{"Fashion-MNIST not found: no folder " + dir +
                     " (install it with: sudo apt-get install dataset-fashion-mnist, or point "
                     "SACCADE_FASHION_MNIST at a folder with the four IDX .gz files)"};
    }
    auto data = std::make_shared<FashionMnist>();
    struct File {
        const char* name;
        int rank;
        IdxArray* out;
    };
    const File files[] = {{"train-images-idx3-ubyte.gz", 3, &data->m_train.images},
                          {"train-labels-idx1-ubyte.gz", 1, &data->m_train.labels},
                          {"t10k-images-idx3-ubyte.gz", 3, &data->m_test.images},
                          {"t10k-labels-idx1-ubyte.gz", 1, &data->m_test.labels}};
    for (const auto& f : files) {
        const auto path = (std::filesystem::path(dir) / f.name).string();
        if (!std::filesystem::exists(path)) {
            return Error{"Fashion-MNIST file missing: " + path +
                         " (reinstall with: sudo apt-get install --reinstall dataset-fashion-mnist)"};
        }
        auto array = readIdxFile(path, f.rank);
        if (!array) return Error{"Fashion-MNIST: " + array.error()};
        *f.out = std::move(*array);
    }
    for (const auto* p : {&data->m_train, &data->m_test}) {
        const auto& dims = p->images.dims;
        if (dims[1] != 28 || dims[2] != 28)
            return Error{"Fashion-MNIST images are " + std::to_string(dims[1]) + "x" +
                         std::to_string(dims[2]) + ", expected 28x28"};
        if (p->labels.dims[0] != dims[0])
            return Error{"Fashion-MNIST has " + std::to_string(dims[0]) + " images but " +
                         std::to_string(p->labels.dims[0]) + " labels"};
        for (auto l : p->labels.data)
            if (l > 9) return Error{"Fashion-MNIST label " + std::to_string(l) + " is not in 0..9"};
    }
    cache[dir] = data;
    return std::shared_ptr<const FashionMnist>(data);
}

std::int64_t FashionMnist::size(Split split) const { return part(split).images.dims[0]; }

Image FashionMnist::image(Split split, std::int64_t index) const {
    const auto& p = part(split);
    Image img = Image::zeros(28, 28, 1);
    const auto* src = p.images.data.data() + static_cast<std::size_t>(index) * 28 * 28;
    std::copy(src, src + 28 * 28, img.pixels.begin());
    return img;
}

int FashionMnist::label(Split split, std::int64_t index) const {
    return part(split).labels.data[static_cast<std::size_t>(index)];
}

std::vector<std::string> FashionMnist::classNames() const { return kClasses; }

}  // namespace saccade
