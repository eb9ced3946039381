#pragma once
// CompareRunsPanel: "if I sample again, does the model look elsewhere, and is it still right?"
// N seeded sample-rule runs of the current image next to the deterministic rule, soft attention
// (where the model has it) and ksample: the output histogram, agreement, per-step entropy over
// the runs, and the distinct glimpse paths, most common first. Choosing a path (or a run number)
// loads that run's trace on the canvas, and so does clicking an output's bar (its first run);
// the visits overlay shows where the runs looked. Statistics stream in while runs compute.
// Every chart and table exports to PNG, SVG and CSV, and the run set to JSON.

#include <QString>
#include <QWidget>

#include "trace/run_set.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace saccade::ui {

class ClassProbChart;
class BandChart;

class CompareRunsPanel : public QWidget {
    Q_OBJECT

public:
    explicit CompareRunsPanel(QWidget* parent = nullptr);

    int runs() const;
    void setRuns(int runs);
    /// Asks for the runs (what the Run button does).
    void startRuns();
    /// Shows a run set and its statistics; `total` > number of runs means more are coming.
    void showResult(const RunSet& set, const RunStats& stats, int total = 0);
    /// Progress of the set being computed.
    void setProgress(int done, int total);
    /// Forgets the shown set (the input or the model changed), with a note.
    void clear(const QString& message = {});
    void showError(const QString& message);
    bool isRunning() const { return m_running; }

    QString summaryText() const;
    QTableWidget* pathTable() const { return m_paths; }
    ClassProbChart* outputChart() const { return m_outputs; }
    BandChart* entropyChart() const { return m_entropy; }
    const RunSet* shownSet() const { return m_set.runs.empty() ? nullptr : &m_set; }

    /// Exports by the suffix of `path` (.png, .svg, .csv); the run set as .json. Empty on success.
    QString exportOutputs(const QString& path);
    QString exportEntropy(const QString& path);
    QString exportPaths(const QString& path);
    /// Captioners: the word hit rates as CSV, PNG or SVG.
    QString exportWords(const QString& path);
    QTableWidget* wordTable() const { return m_words; }
    QString exportRunSet(const QString& path) const;

Q_SIGNALS:
    void runRequested(int runs);
    void cancelRequested();
    /// Load run `seed` (the sample rule with that seed) on the canvas.
    void runChosen(quint64 seed);

protected:
    /// The summary keeps the height its wrapped text needs at its width (never cut mid-sentence).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildResultViews();
    void buildLoadRow();
    void buildLayout();
    void connectSignals();
    void showSummary(const RunSet& set, const RunStats& stats, int total);
    void showPaths(const RunSet& set, const RunStats& stats);
    void showWords(const RunSet& set, const RunStats& stats);
    void fitSummary();
    void setRunning(bool running);
    QString outputsCsv() const;
    QString pathsCsv() const;
    QString wordsCsv() const;

    QSpinBox* m_count = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_summary = nullptr;
    ClassProbChart* m_outputs = nullptr;
    BandChart* m_entropy = nullptr;
    QTableWidget* m_paths = nullptr;
    QTableWidget* m_words = nullptr;
    QSpinBox* m_runIndex = nullptr;
    QPushButton* m_loadRun = nullptr;
    QWidget* m_export = nullptr;
    RunSet m_set;
    RunStats m_stats;
    bool m_running = false;
};

}  // namespace saccade::ui
