#pragma once
// LengthPage: attention at length. Pick a variant (full, memory_efficient, local, block_sparse,
// top_k, linear, performer) and a length; the page measures, on a job thread with progress and
// Cancel, its sparsity pattern, each query row's total variation from exact attention, and its
// time and memory against length beside full attention (log-log), and draws them as
// `saccade-cli length view` does. Exports: PNG, SVG, CSV, JSON. The first visit measures the
// defaults, so the page never opens empty.

#include <QWidget>

#include "attention/attention_variants.h"
#include "analysis/length/length_view.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QWidget;

namespace saccade::ui {

class AnalysisJob;
class LengthFigureView;

class LengthPage : public QWidget {
    Q_OBJECT

public:
    explicit LengthPage(QWidget* parent = nullptr);

    /// The request the controls describe now.
    LengthViewOptions request() const;
    /// Selects `variant` and `n` in the controls (does not measure).
    void select(AttentionVariant variant, int n);
    /// Measures the controls' request; false (with the reason shown) when it does not fit.
    bool measure();
    bool isRunning() const;
    /// Running, or not yet measured (the first visit measures): a screenshot waits for it.
    bool isBusy() const { return isRunning() || !m_measuredOnce; }
    LengthFigureView* figure() const { return m_figure; }
    QString notesText() const;
    QString exportTo(const QString& path) const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    QWidget* buildControls();
    QSpinBox* addSpin(QFormLayout* form, const QString& label, const QString& name, int lo, int hi, int value,
                      const QString& tip);
    void updateEnabled();
    void showResult(const LengthView& view);

    QComboBox *m_variant = nullptr, *m_inputs = nullptr;
    QSpinBox *m_n = nullptr, *m_window = nullptr, *m_block = nullptr, *m_summary = nullptr, *m_k = nullptr;
    QSpinBox *m_features = nullptr, *m_featureSeed = nullptr, *m_tile = nullptr;
    QSpinBox *m_heads = nullptr, *m_dim = nullptr, *m_seed = nullptr;
    QPushButton *m_run = nullptr, *m_cancel = nullptr;
    QWidget* m_export = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_notes = nullptr;
    LengthFigureView* m_figure = nullptr;
    AnalysisJob* m_job = nullptr;
    bool m_measuredOnce = false;
};

}  // namespace saccade::ui
