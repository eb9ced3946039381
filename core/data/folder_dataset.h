#pragma once
// A folder of the user's images in the common layout FOLDER/CLASS_NAME/IMAGE (PNG, JPEG, BMP,
// TIFF): classes are the subfolders in name order, images in name order within each. A folder is
// one set of images, so both splits hold all of them. Every image must have the same size; grey
// and colour may mix (grey is then widened to RGB). Images have no object boxes.

#include <memory>
#include <string>

#include "common/result.h"
#include "data/dataset.h"

namespace saccade {

/// Whether `name` names an existing folder (then openDataset opens it as an image folder).
bool isImageFolder(const std::string& name);

/// Scans and checks the folder: every image is decoded once (a corrupt or huge one, one of
/// another size, an empty class folder or no class folders at all is an Error naming it).
Result<std::shared_ptr<const Dataset>> openImageFolder(const std::string& folder);

}  // namespace saccade
