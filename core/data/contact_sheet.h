#pragma once
// Contact sheets: a grid of samples with their ground truth drawn (target box in green,
// distractors in red, scene objects in yellow), each tile labelled.

#include <string>
#include <vector>

#include "data/image.h"
#include "data/sample.h"

namespace saccade {

struct ContactSheetOptions {
    int columns = 4;
    int tileSize = 168;  ///< each sample is scaled (nearest neighbour) to fit this square
    bool drawBoxes = true;
    int gridCell = 0;               ///< > 0: draw the patch grid lines every gridCell pixels
    int gridOriginX = 0, gridOriginY = 0;
    int captionLines = 1;           ///< caption lines under each tile; long captions wrap
};

/// One tile per sample with its title underneath (wrapped to captionLines lines). RGB output.
Image contactSheet(const std::vector<Sample>& samples, const std::vector<std::string>& titles,
                   const ContactSheetOptions& options = {});

}  // namespace saccade
