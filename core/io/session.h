#pragma once
// A session (.saccade): what a demo needs to reopen exactly. JSON with a schema name and version:
// the model (path and the CRC-32 of its file), the image (a dataset's test sample or a file),
// rule, seed, step, overlays, the open page and tab, free-text notes, and the Sequences page's
// models, input, step and map. Reopening draws the same
// trace (same numbers) as when it was saved; a model that moved or changed is reported, not
// guessed at. Plain values: the GUI maps them onto its widgets.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace saccade {

constexpr int kSessionSchemaVersion = 1;

struct SessionOverlays {
    bool heatmap = true, chosen = true, path = true, truth = true, grid = false;
    double heatmapOpacity = 0.55;
};

/// The Sequences page: its model and the one compared beside it, the input, rule, seed, step and
/// the Transformer map shown.
struct SessionSequences {
    std::string model, compare;  ///< checkpoint paths; compare empty: none
    std::string text, rule = "soft", map;
    std::uint64_t seed = 1;
    int step = 0;  ///< 0-based output step
    bool headView = false;
    std::string compareWith;  ///< a text encoder's second sentence (the similarity box); empty: none kept
};

struct Session {
    std::string modelPath, modelCrc32;  ///< absolute path; CRC-32 of the .pt when saved
    std::string dataset;                ///< a test sample: dataset and index ...
    std::int64_t sampleIndex = -1;
    std::string imageFile;              ///< ... or an image file (absolute path)
    std::string rule = "argmax";
    std::uint64_t seed = 1;
    int step = 0;                       ///< 0-based
    int runs = 0;                       ///< sampled runs to start on opening (a dataset sample; 0: none)
    SessionOverlays overlays;
    std::string page = "attention", tab;  ///< the page's key and the Attention page's tab
    std::string pageTab;                  ///< the open page's own tab when it has tabs ("cost"); empty: none
    std::string notes;
    std::optional<SessionSequences> sequences;  ///< when the Sequences page had a model
    /// The Attention page's map beside the attention: an attribution method ("" : none) and
    /// whether it is shown beside the attention (else alone).
    std::string attributionMap;
    bool mapSideBySide = true;
};

std::string sessionToJson(const Session& session);
/// Strict: the schema name, a version this program reads, every field's type and range; the
/// error names the field.
Result<Session> sessionFromJson(const std::string& json);

/// Written atomically. The path must end in .saccade.
Result<Unit> saveSession(const Session& session, const std::string& path);
/// Reads and parses (at most 1 MiB); errors name the file. Relative model and image paths are
/// taken relative to the session file's folder (so a tour can travel with its models).
Result<Session> loadSession(const std::string& path);

/// A presentation: sessions in order, advanced by keys or every `seconds` (0: by keys only).
struct Tour {
    std::vector<std::string> sessions;
    double seconds = 0;
};
/// A folder (its .saccade files in name order) or a tour file: JSON {"schema": "saccade.tour",
/// "version": 1, "sessions": ["1-scalar.saccade", ...], "seconds": 0}, names relative to it.
Result<Tour> loadTour(const std::string& path);

/// Whether the session's model is still the file it was saved with: an error when it is gone
/// ("moved or deleted") or its bytes changed (both CRC-32s named).
Result<Unit> checkSessionModel(const Session& session);

}  // namespace saccade
