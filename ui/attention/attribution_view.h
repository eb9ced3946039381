#pragma once
// AttributionView: the Attention page's map chooser and the map beside attention (issue 37). A
// row above the canvas picks the map: the rule's own attention, or an attribution method
// (analysis/attribution.h); a chosen method is computed on the model worker for the image and
// rule the canvas shows, drawn on a second canvas beside the attention (side by side, one colour
// scale for both on request, the same legend) or alone, with its figures (mass in box, pointing game,
// integrated gradients' completeness error) in the row.

#include <QList>
#include <QObject>
#include <QPair>
#include <QString>
#include <optional>

#include "analysis/attribution/attribution.h"
#include "data/image.h"
#include "trace/trace.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QWidget;

namespace saccade::ui {

class AttentionCanvas;
class ModelService;

class AttributionView : public QObject {
    Q_OBJECT

public:
    /// `attention` is the page's canvas; the view makes the row and the second canvas (parented
    /// to `parent`), and places nothing: the page lays out row() and canvas().
    AttributionView(ModelService* service, AttentionCanvas* attention, QWidget* parent);

    QWidget* row() const { return m_row; }
    AttentionCanvas* canvas() const { return m_canvas; }
    /// The chosen method; empty: the rule's attention alone.
    QString method() const;
    bool setMethod(const QString& method);
    void setSideBySide(bool on);
    bool sideBySide() const;
    /// Side by side, one colour scale for both maps (off, the default: each map on its own scale,
    /// so an attribution whose top cell holds 5% is not drawn black beside an attention at 85%).
    void setSharedScale(bool on);
    bool sharedScale() const;
    QString figuresText() const;
    /// The map of the shown method's last answer (none while computing or after an error).
    const std::optional<AttributionMap>& map() const { return m_map; }
    /// A map is asked for and has not come yet.
    bool busy() const { return m_busy; }

    /// The page shows a new trace of `image` (its truth, its rule, the side of its square attention
    /// grid, 0 for none): a chosen method follows it, on that grid where the model has no cell
    /// grid of its own (a ViT's patches), so the two maps have the same cells. `wordSteps`: the
    /// steps are words (a captioner): the map is the current step's word's, and follows the step.
    void traceShown(const Image& image, const std::optional<GroundTruth>& truth, const QString& rule, int gridSide = 0,
                    bool wordSteps = false);
    /// Another model opened: the old map goes.
    void clear();
    /// Greys out the maps a classifier cannot give (the model card's maps: name and reason, empty
    /// when it gives it), with the reason as the item's tooltip; a map shown that the new model
    /// cannot give falls back to the attention alone. Captioners keep every map (word by word).
    void setAvailableMaps(const QList<QPair<QString, QString>>& maps, bool classifier);
    /// The attention canvas moved to another step: the shared colour scale follows.
    /// The attention's step moved: the scale is shared again, and a word's map follows the step.
    void attentionStepChanged();

Q_SIGNALS:
    void statusMessage(const QString& message);

private:
    void request();
    void onReady(const AttributionMap& map);
    void onFailed(const QString& message);
    void updateVisibility();
    void shareScale();

    ModelService* m_service;
    AttentionCanvas* m_attention;
    AttentionCanvas* m_canvas = nullptr;
    QWidget* m_row = nullptr;
    QComboBox* m_combo = nullptr;
    QCheckBox* m_beside = nullptr;
    QCheckBox* m_shared = nullptr;
    QLabel* m_figures = nullptr;
    std::optional<Image> m_image;
    std::optional<GroundTruth> m_truth;
    QString m_rule;
    int m_gridSide = 0;
    std::optional<AttributionMap> m_map;
    bool m_busy = false;
    bool m_wordSteps = false;  ///< a captioner: one map per word step
    int m_requestedStep = -1;  ///< the word step last asked for
};

/// A one-step trace of `map` over an image of its size (the cells as the step's grid), with
/// `truth`: what the canvas draws for an attribution map.
Trace attributionTrace(const AttributionMap& map, const std::optional<GroundTruth>& truth);

/// "in box 35.5% (box 8.6%) · pointing hit · completeness 0.30% · 6 ms", with "not measured"
/// where a figure was not.
QString attributionFigures(const AttributionMap& map);

}  // namespace saccade::ui
