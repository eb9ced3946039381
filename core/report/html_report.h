#pragma once
// The reviewer's report: one self-contained HTML file (figures inlined as SVG and PNG data URLs,
// no external resources) with the model card, accuracy per rule with 95% intervals and the
// training rule marked, one image's sampled runs against the deterministic rule (a model without
// sampled runs: its rules compared on the test images), the failure map
// of a boundary sweep, faithfulness with its caveat, and the cost per stage. Each section is
// measured here with the library's own functions; a section the model cannot have (e.g. the
// sweep of a captioner) says why instead of showing a figure.

#include <cstdint>
#include <string>

#include "analysis/runs/boundary_sweep.h"
#include "common/progress.h"
#include "common/result.h"

namespace saccade {

class AttentionModel;

struct ReportOptions {
    std::string modelPath;          ///< the checkpoint (for the card and the cost profile)
    /// A Saccade dataset or an image folder (FOLDER/CLASS/IMAGE.png); empty: the model's own.
    std::string dataset;
    std::int64_t limit = 500;       ///< test images for accuracy per rule
    std::int64_t imageIndex = 0;    ///< the test image of the runs section
    int runs = 200;                 ///< sampled runs of that image
    int sweepRuns = kSweepRuns;     ///< sampled runs per sweep position (the GUI's and the CLI's default)
    std::int64_t faithfulnessImages = 100;
    int costRepeats = 3;            ///< timed repetitions per stage (median)
    std::uint64_t seed = 1;
    std::string generated;          ///< when, as text for the header (the caller's clock)
};

/// Builds the report (progress over all sections; false cancels: "the report was cancelled").
Result<std::string> buildHtmlReport(AttentionModel& model, const ReportOptions& options,
                                    const Progress& progress = {});

}  // namespace saccade
