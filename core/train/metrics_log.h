#pragma once
// Training metrics, one row per evaluation period, as CSV and as a JSON array beside the
// checkpoint ("model.pt" -> "model.metrics.csv", "model.metrics.json"), rewritten atomically.
// A resumed run continues the JSON log beside its checkpoint, so it keeps its history.

#include <string>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/result.h"

namespace saccade {

class MetricsLog {
public:
    /// continueExisting: start from the rows of an existing log (when resuming).
    MetricsLog(const std::string& checkpointPath, bool continueExisting);
    /// Appends a row (a flat JSON object; the first row fixes the CSV columns) and rewrites both files.
    Result<Unit> append(const nlohmann::json& row);
    const std::string& csvPath() const { return m_csv; }
    const std::string& jsonPath() const { return m_json; }

private:
    std::string m_csv, m_json;
    nlohmann::json m_rows = nlohmann::json::array();
};

}  // namespace saccade
