#pragma once
// A folder of the user's images in the common layout FOLDER/CLASS_NAME/IMAGE (PNG, JPEG, BMP,
// TIFF). Given the model's class names, each class folder takes the label of the class it names
// (case-insensitive, or by index: "3"), so a folder may hold some of the classes in any order;
// without them, classes are the subfolders in name order. Images are in name order within each
// class. A folder is
// one set of images, so both splits hold all of them. Given a fit with a crop (the model's,
// data/image_fit.h), images of any size are resized and cropped to it; without one, every image
// must have the same square size. Grey and colour may mix (grey is then widened to RGB). Images
// have no object boxes.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "data/dataset.h"
#include "data/image_fit.h"

namespace saccade {

/// Whether `name` names an existing folder (then openDataset opens it as an image folder).
bool isImageFolder(const std::string& name);

/// Scans and checks the folder: every image is decoded once (a corrupt or huge one, one of
/// another size, an empty class folder, a class folder that names none of `classNames`, or no
/// class folders at all is an Error naming it). `unlabelled` (a captioner's images): one subfolder
/// is enough and no name is checked; the labels are the folders' order.
Result<std::shared_ptr<const Dataset>> openImageFolder(const std::string& folder,
                                                       const std::vector<std::string>& classNames = {},
                                                       const ImageFit& fit = {}, bool unlabelled = false);

}  // namespace saccade
