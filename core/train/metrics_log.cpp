#include "train/metrics_log.h"

#include "io/checkpoint.h"

#include <filesystem>
#include <sstream>

namespace saccade {

MetricsLog::MetricsLog(const std::string& checkpointPath, bool continueExisting) {
    const auto companions = checkpointCompanions(checkpointPath);
    m_csv = companions[1];
    m_json = companions[2];
    if (!continueExisting) return;
    if (auto previous = readFile(m_json, 64u << 20); previous) {
        auto rows = nlohmann::json::parse(*previous, nullptr, false);
        if (rows.is_array()) m_rows = std::move(rows);
    }
}

Result<Unit> MetricsLog::append(const nlohmann::json& row) {
    m_rows.push_back(row);
    std::ostringstream csv;
    csv.precision(8);
    const auto& first = m_rows.front();
    bool comma = false;
    for (auto it = first.begin(); it != first.end(); ++it, comma = true) csv << (comma ? "," : "") << it.key();
    csv << "\n";
    for (const auto& r : m_rows) {
        comma = false;
        for (auto it = first.begin(); it != first.end(); ++it, comma = true) {
            csv << (comma ? "," : "");
            if (r.contains(it.key())) csv << r.at(it.key()).dump();
        }
        csv << "\n";
    }
    if (auto w = writeFileAtomic(m_csv, csv.str()); !w) return w;
    return writeFileAtomic(m_json, m_rows.dump(2) + "\n");
}

}  // namespace saccade
