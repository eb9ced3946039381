#include "analysis/runs/shift_agreement.h"

#include <algorithm>
#include <limits>

#include "common/seed_mix.h"
#include "metrics/attention_regions.h"

namespace saccade {

namespace {

constexpr std::uint64_t kImageShiftStream = 0x5817f7;

// The most attended cell of a step on a rows x cols grid over a width x height image.
int peakCell(const TraceStep& step, int width, int height, int rows, int cols) {
    const auto map = attentionOnGrid(step, width, height, rows, cols);
    return map.empty() ? -1 : int(std::max_element(map.begin(), map.end()) - map.begin());
}

}  // namespace

Image shiftImage(const Image& image, int dx, int dy) {
    Image out = Image::zeros(image.width, image.height, image.channels);
    for (int y = std::max(0, dy); y < std::min(image.height, image.height + dy); ++y)
        for (int x = std::max(0, dx); x < std::min(image.width, image.width + dx); ++x)
            for (int c = 0; c < image.channels; ++c) out.at(x, y, c) = image.at(x - dx, y - dy, c);
    return out;
}

std::vector<std::pair<int, int>> seededShifts(std::uint64_t seed, std::int64_t index, int count, int maxShift) {
    std::vector<std::pair<int, int>> shifts;
    if (maxShift < 1) return shifts;
    std::mt19937_64 random(mixSeed(seed, kImageShiftStream, std::uint64_t(index)));
    while (int(shifts.size()) < count) {
        const int dx = int(uniformInt(random, -maxShift, maxShift)), dy = int(uniformInt(random, -maxShift, maxShift));
        if (dx != 0 || dy != 0) shifts.emplace_back(dx, dy);
    }
    return shifts;
}

Result<ShiftAgreement> measureShiftAgreement(AttentionModel& model, const Image& image, const Trace& reference,
                                             const std::string& rule, std::uint64_t seed,
                                             const std::vector<std::pair<int, int>>& shifts, int fallbackGrid) {
    ShiftAgreement a;
    if (shifts.empty() || reference.steps.empty()) return a;
    const auto& g = reference.steps.front().grid;
    const int rows = g ? g->rows : fallbackGrid, cols = g ? g->cols : fallbackGrid;
    const int w = image.width, h = image.height;
    std::vector<int> before;
    for (const auto& step : reference.steps) before.push_back(peakCell(step, w, h, rows, cols));
    int sameAnswer = 0, sameLook = 0, looks = 0;
    for (const auto& [dx, dy] : shifts) {
        auto t = model.trace(shiftImage(image, dx, dy), rule, seed, reference.imageId + ":shifted");
        if (!t) return Error{t.error()};
        sameAnswer += t->output.label == reference.output.label ? 1 : 0;
        for (size_t k = 0; k < t->steps.size() && k < before.size(); ++k) {
            const int cell = peakCell(t->steps[k], w, h, rows, cols);
            if (cell < 0 || before[k] < 0) continue;
            // The cell's centre in the shifted image, moved back by the offset, in the unshifted grid.
            const double x = (cell % cols + 0.5) * w / cols - dx, y = (cell / cols + 0.5) * h / rows - dy;
            const int col = std::clamp(int(x * cols / w), 0, cols - 1), row = std::clamp(int(y * rows / h), 0, rows - 1);
            sameLook += row * cols + col == before[k] ? 1 : 0;
            ++looks;
        }
    }
    a.copies = int(shifts.size());
    a.answer = double(sameAnswer) / double(shifts.size());
    a.look = looks ? double(sameLook) / double(looks) : std::numeric_limits<double>::quiet_NaN();
    return a;
}

}  // namespace saccade
