#pragma once
// Fashion-MNIST from the Debian package dataset-fashion-mnist (or any folder with its four
// IDX .gz files): 60,000 training and 10,000 test 28x28 grey images in 10 classes.

#include <memory>
#include <string>

#include "common/result.h"
#include "data/idx_reader.h"
#include "data/sample.h"

namespace saccade {

/// The Debian package's folder.
constexpr const char* kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";

/// dir if not empty, else $SACCADE_FASHION_MNIST, else kFashionMnistDefaultDir.
std::string fashionMnistDir(const std::string& dir = "");

class FashionMnist : public ObjectSource {
public:
    /// Loads and validates all four files (about 0.5 s); loads of the same folder share one copy
    /// for the life of the process. Errors name the missing or broken file and the fix.
    static Result<std::shared_ptr<const FashionMnist>> load(const std::string& dir = "");

    std::string name() const override { return "fashion-mnist"; }
    std::int64_t size(Split split) const override;
    Image image(Split split, std::int64_t index) const override;
    int label(Split split, std::int64_t index) const override;
    std::vector<std::string> classNames() const override;

private:
    struct Part {
        IdxArray images, labels;
    };
    const Part& part(Split split) const { return split == Split::Train ? m_train : m_test; }
    Part m_train, m_test;
};

}  // namespace saccade
