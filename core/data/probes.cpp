#include "data/probes.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "common/seed_mix.h"
#include "data/canvas.h"

namespace saccade {

namespace {

constexpr std::uint64_t kProbeStream = 0x9b0be;
constexpr long long kMaxProbes = 100000;
constexpr long long kMaxProbePixels = 1LL << 26;  // 256 MB of one-channel float canvases

Image blob(int size) {
    // A soft disc that touches all four sides of its square, like a small defect.
    Image img = Image::zeros(size, size, 1);
    const double c = size / 2.0;
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
            const double r = std::hypot(x + 0.5 - c, y + 0.5 - c) / c;
            if (r <= 1.0) img.at(x, y) = static_cast<std::uint8_t>(255 - 100 * r);
        }
    if (size <= 2) std::fill(img.pixels.begin(), img.pixels.end(), 255);
    return img;
}

Image resizedItem(const ObjectSource& source, std::int64_t index, int size) {
    const Image item = source.image(Split::Test, index);
    const Box ink = inkBox(item, 0, 0, item.width, item.height, 0, 0);
    cv::Mat mat(item.height, item.width, CV_8UC1, const_cast<std::uint8_t*>(item.pixels.data()));
    cv::Mat crop = mat(cv::Rect(int(ink.x), int(ink.y), int(ink.w), int(ink.h)));
    cv::Mat out;
    cv::resize(crop, out, cv::Size(size, size), 0, 0, cv::INTER_AREA);
    Image img = Image::zeros(size, size, 1);
    std::copy(out.datastart, out.dataend, img.pixels.begin());
    return img;
}

}  // namespace

Result<ProbeObject> parseProbeObject(const std::string& name) {
    if (name == "blob") return ProbeObject::Blob;
    if (name == "item") return ProbeObject::Item;
    return Error{"unknown probe object '" + name + "' (use blob or item)"};
}

int probeAnchor(int canvas, int cellSize, int origin) {
    const double k = std::round((canvas / 2.0 - origin) / cellSize);
    return origin + static_cast<int>(k) * cellSize;
}

Result<std::vector<ProbeSample>> makeProbes(const ProbeOptions& o, const ObjectSource* source) {
    if (o.canvas < 8 || o.canvas > 4096) return Error{"probe canvas must be 8..4096 pixels"};
    if (o.cellSize < 1) return Error{"cell size must be at least 1 pixel"};
    if (o.objectSize < 1 || o.objectSize > o.canvas) return Error{"object size must be 1..canvas"};
    if (o.dxMin > o.dxMax || o.dyMin > o.dyMax) return Error{"empty offset range"};
    const long long count = (long long)(o.dxMax - o.dxMin + 1) * (o.dyMax - o.dyMin + 1);
    if (count > kMaxProbes) {
        return Error{"the sweep has " + std::to_string(count) + " offsets, over the limit of " +
                     std::to_string(kMaxProbes)};
    }
    // Memory, not only the count: every probe holds a canvas of float pixels.
    const long long pixels = count * o.canvas * o.canvas;
    if (pixels > kMaxProbePixels) {
        return Error{"the sweep needs " + std::to_string(count) + " canvases of " + std::to_string(o.canvas) + "x" +
                     std::to_string(o.canvas) + " pixels (" + std::to_string(pixels * 4 >> 20) +
                     " MB), over the limit of " + std::to_string(kMaxProbePixels * 4 >> 20) +
                     " MB: use fewer offsets or a smaller canvas"};
    }
    if ((o.object == ProbeObject::Item || o.distractors > 0) && source == nullptr)
        return Error{"item probes and clutter need an object source (a dataset)"};
    if (o.object == ProbeObject::Item && (o.itemIndex < 0 || o.itemIndex >= source->size(Split::Test)))
        return Error{"item index " + std::to_string(o.itemIndex) + " is outside the test split"};
    const int ax = probeAnchor(o.canvas, o.cellSize, o.originX);
    const int ay = probeAnchor(o.canvas, o.cellSize, o.originY);
    for (int dx : {o.dxMin, o.dxMax})
        for (int dy : {o.dyMin, o.dyMax}) {
            const int x = ax + dx, y = ay + dy;
            if (x < 0 || y < 0 || x + o.objectSize > o.canvas || y + o.objectSize > o.canvas) {
                return Error{"offset (" + std::to_string(dx) + ", " + std::to_string(dy) +
                             ") puts the object outside the " + std::to_string(o.canvas) +
                             "-pixel canvas (anchor line at " + std::to_string(ax) + ", " +
                             std::to_string(ay) + ")"};
            }
        }

    const Image object = o.object == ProbeObject::Blob ? blob(o.objectSize)
                                                       : resizedItem(*source, o.itemIndex, o.objectSize);
    const int label = o.object == ProbeObject::Item ? source->label(Split::Test, o.itemIndex) : -1;

    // One clutter background for the whole sweep, kept off the region the object sweeps over.
    Sample background;
    background.image = Image::zeros(o.canvas, o.canvas, 1);
    const Box swept{double(ax + o.dxMin), double(ay + o.dyMin),
                    double(o.dxMax - o.dxMin + o.objectSize), double(o.dyMax - o.dyMin + o.objectSize)};
    std::mt19937_64 rng(mixSeed(o.seed, kProbeStream, 0));
    for (int k = 0; k < o.distractors; ++k) {
        const int c = 8;
        const Image piece = source->image(Split::Test, uniformInt(rng, 0, source->size(Split::Test) - 1));
        const int cx = static_cast<int>(uniformInt(rng, 0, piece.width - c));
        const int cy = static_cast<int>(uniformInt(rng, 0, piece.height - c));
        Box at;
        for (int attempt = 0; attempt < 50; ++attempt) {
            at = {double(uniformInt(rng, 0, o.canvas - c)), double(uniformInt(rng, 0, o.canvas - c)),
                  double(c), double(c)};
            if (at.intersectionArea(swept) == 0) break;
        }
        Image crop = Image::zeros(c, c, 1);
        for (int yy = 0; yy < c; ++yy)
            for (int xx = 0; xx < c; ++xx) crop.at(xx, yy) = piece.at(cx + xx, cy + yy);
        pasteMax(background.image, crop, int(at.x), int(at.y));
        background.distractors.push_back(at);
    }

    std::vector<ProbeSample> out;
    for (int dy = o.dyMin; dy <= o.dyMax; ++dy)
        for (int dx = o.dxMin; dx <= o.dxMax; ++dx) {
            ProbeSample p{dx, dy, background};
            pasteMax(p.sample.image, object, ax + dx, ay + dy);
            p.sample.box = {double(ax + dx), double(ay + dy), double(o.objectSize), double(o.objectSize)};
            p.sample.label = label;
            out.push_back(std::move(p));
        }
    return out;
}

}  // namespace saccade
