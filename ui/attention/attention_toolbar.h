#pragma once
// AttentionToolbar: the controls above the canvas: selection rule and its parameter, seed,
// overlay toggles and heatmap opacity, zoom (fit, 1:1) and the export menu.

#include <QHash>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "ui/attention/overlay_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QSlider;
class QSpinBox;
class QStackedWidget;
class QToolButton;

namespace saccade::ui {

class AttentionToolbar : public QWidget {
    Q_OBJECT

public:
    enum class Export { ViewPng, ViewSvg, StripPng, Gif, TraceJson, TraceCsv };

    explicit AttentionToolbar(QWidget* parent = nullptr);

    /// Offers only these rule names (base names: argmax, mean, sample, soft, topk, gumbel,
    /// ksample, random; empty: all). Keeps the current rule if it is offered, else selects
    /// `fallback`; emits runChanged when the rule changed.
    /// `ranges`: the K each counted rule takes on the open model (head: 0 to heads-1); the K box
    /// offers only those values, and setRule refuses others.
    void setAvailableRules(const QStringList& rules, const QString& fallback,
                           const QHash<QString, QPair<int, int>>& ranges = {});
    /// The K range the box offers for a counted rule's base name (head, topk, ksample, beam).
    QPair<int, int> kRange(const QString& base) const;
    /// The rule in the engine's spelling: soft, sample, argmax, mean, random, topk:K, ksample:K,
    /// gumbel:TAU.
    QString rule() const;
    /// Accepts any of those spellings; false (and no change) for anything else.
    bool setRule(const QString& rule);
    quint64 seed() const;
    void setSeed(quint64 seed);
    OverlaySettings overlays() const;
    void setOverlays(const OverlaySettings& overlays);
    void setZoomText(double zoom);
    /// Enables the export menu's entries (they need a trace).
    void setExportEnabled(bool enabled);

Q_SIGNALS:
    /// Rule, parameter or seed changed.
    void runChanged();
    void overlaysChanged(const saccade::ui::OverlaySettings& overlays);
    void fitRequested();
    void actualSizeRequested();
    void exportRequested(saccade::ui::AttentionToolbar::Export what);

protected:
    /// The parameter boxes follow the type (presentation mode).
    void changeEvent(QEvent* event) override;

private:
    void buildRunControls();
    void buildOverlayControls();
    void buildExportButton();
    void buildLayout();
    void connectSignals();
    void updateEnabled();

    QComboBox* m_rule = nullptr;
    void fitParameterBoxes();
    QSpinBox* m_k = nullptr;
    QHash<QString, QPair<int, int>> m_ranges;  ///< the open model's K per counted rule
    QDoubleSpinBox* m_tau = nullptr;
    /// One slot for the rule's parameter (K, tau or nothing): as wide as the widest, always there,
    /// so choosing a rule never moves the rest of the toolbar.
    QStackedWidget* m_parameter = nullptr;
    QSpinBox* m_seed = nullptr;
    QToolButton* m_newSeed = nullptr;
    QCheckBox* m_heatmap = nullptr;
    QSlider* m_opacity = nullptr;
    QCheckBox* m_chosen = nullptr;
    QCheckBox* m_path = nullptr;
    QCheckBox* m_truth = nullptr;
    QCheckBox* m_grid = nullptr;
    QToolButton* m_zoom = nullptr;  ///< shows the zoom; its menu fits or shows 1:1
    QToolButton* m_export = nullptr;
};

}  // namespace saccade::ui
