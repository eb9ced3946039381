#include "metrics/attention_regions.h"

#include <algorithm>
#include <cmath>

namespace saccade {

namespace {

double normalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double intervalMass(double mean, double sd, double lo, double hi) {
    if (sd <= 0) return mean >= lo && mean < hi ? 1.0 : 0.0;
    return std::max(0.0, normalCdf((hi - mean) / sd) - normalCdf((lo - mean) / sd));
}

}  // namespace

Box cellBox(int rows, int cols, int width, int height, int index) {
    const int r = index / cols, c = index % cols;
    const int x0 = width * c / cols, x1 = width * (c + 1) / cols;
    const int y0 = height * r / rows, y1 = height * (r + 1) / rows;
    return Box{double(x0), double(y0), double(x1 - x0), double(y1 - y0)};
}

double coverage(const Box& object, const Box& region) {
    const double area = object.w * object.h;
    return area > 0 ? object.intersectionArea(region) / area : 0.0;
}

double gridMassInBox(const GridDistribution& grid, int width, int height, const Box& box) {
    double mass = 0;
    for (int i = 0; i < grid.rows * grid.cols && i < int(grid.probs.size()); ++i) {
        const Box cell = cellBox(grid.rows, grid.cols, width, height, i);
        const double area = cell.w * cell.h;
        if (area > 0) mass += grid.probs[size_t(i)] * cell.intersectionArea(box) / area;
    }
    return mass;
}

double gaussianMassInBox(const GaussianPolicy& g, const Box& box) {
    return intervalMass(g.meanX, g.stdX, box.x, box.x + box.w) * intervalMass(g.meanY, g.stdY, box.y, box.y + box.h);
}

double stepMassInBox(const TraceStep& step, int width, int height, const Box& box) {
    if (step.grid) return gridMassInBox(*step.grid, width, height, box);
    if (step.gaussian) return gaussianMassInBox(*step.gaussian, box);
    return -1;
}

std::vector<Box> chosenRegions(const TraceStep& step, int width, int height) {
    std::vector<Box> regions;
    if (step.grid)
        for (int cell : step.chosenCells) regions.push_back(cellBox(step.grid->rows, step.grid->cols, width, height, cell));
    for (const auto& g : step.glimpses)
        if (g.scale == 0) regions.push_back(g.box);
    return regions;
}

bool pointsAt(const TraceStep& step, int width, int height, const Box& box) {
    if (step.grid && !step.grid->probs.empty()) {
        const auto& p = step.grid->probs;
        const int best = int(std::max_element(p.begin(), p.end()) - p.begin());
        return cellBox(step.grid->rows, step.grid->cols, width, height, best).intersectionArea(box) > 0;
    }
    if (step.gaussian) {
        const auto& g = *step.gaussian;
        return g.meanX >= box.x && g.meanX < box.x + box.w && g.meanY >= box.y && g.meanY < box.y + box.h;
    }
    return false;
}

std::vector<double> attentionOnGrid(const TraceStep& step, int width, int height, int rows, int cols) {
    std::vector<double> mass(size_t(rows * cols), 0.0);
    if (step.grid && step.grid->rows == rows && step.grid->cols == cols) {
        for (size_t i = 0; i < mass.size() && i < step.grid->probs.size(); ++i) mass[i] = step.grid->probs[i];
        return mass;
    }
    double total = 0;
    for (int i = 0; i < rows * cols; ++i) {
        mass[size_t(i)] = std::max(0.0, stepMassInBox(step, width, height, cellBox(rows, cols, width, height, i)));
        total += mass[size_t(i)];
    }
    if (total > 0)
        for (double& m : mass) m /= total;
    return mass;
}

}  // namespace saccade
