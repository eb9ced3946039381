#pragma once
// File > Export report: the same self-contained HTML report as `saccade-cli report` (or, for a
// .pdf name, the same report as PDF through Qt), measured on a thread of its own (AnalysisJob:
// the work loads its own copy of the model) with a progress dialog that cancels, written
// atomically.

#include <QObject>
#include <QString>
#include <functional>

#include "report/html_report.h"
#include "ui/file_dialogs.h"

class QProgressDialog;
class QWidget;

namespace saccade::ui {

class AnalysisJob;

class ReportExporter : public QObject {
    Q_OBJECT

public:
    explicit ReportExporter(QWidget* parent);

    /// Asks for a file (in the folder of the last report) and builds the report of `checkpoint`
    /// into it, on `dataset` (a dataset name or an image folder; empty: the model's own), as
    /// `saccade-cli report --dataset`. An empty checkpoint says to open a model first.
    void exportReport(const QString& checkpoint, const QString& dataset = {});
    /// Builds without asking: `options` (modelPath set) into `path`; for tests and scripts.
    /// False when a report is already being made.
    bool start(const ReportOptions& options, const QString& path);
    bool isRunning() const;

Q_SIGNALS:
    void statusMessage(const QString& message);
    /// Written (error empty) or failed (error says why, "cancelled" included).
    void finished(const QString& path, const QString& error);

private:
    QWidget* m_parent;
    AnalysisJob* m_job;
    QProgressDialog* m_dialog = nullptr;
};

}  // namespace saccade::ui
