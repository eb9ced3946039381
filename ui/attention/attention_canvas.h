#pragma once
// AttentionCanvas: an image with the overlays of one trace step (attention heatmap and legend,
// chosen cells with step numbers, the path so far, Gaussian policy and glimpse boxes, ground
// truth), zoomable with the wheel (about the cursor), pannable by dragging, fit or 1:1.

#include <QImage>
#include <QMap>
#include <QPen>
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "ui/attention/overlay_settings.h"
#include "trace/trace.h"

class QPainter;

namespace saccade::ui {

/// The Runs overlay labels at most this many cells per step (the most visited).
constexpr std::size_t kLabelledVisits = 6;
/// Which cells carry their share of runs: the kLabelledVisits most visited (the first on ties),
/// and only those with at least 0.5% (a share that would round to 0% is not labelled).
std::vector<bool> labelledVisits(const std::vector<double>& visits);

class AttentionCanvas : public QWidget {
    Q_OBJECT

public:
    explicit AttentionCanvas(QWidget* parent = nullptr);

    /// The image the trace was computed on (grey or RGB). Fits it to the window when its size
    /// changes.
    void setImage(const QImage& image);
    void setTrace(const Trace& trace);
    void clearTrace();
    /// Shown centred when there is no image (loading, or an error).
    void setMessage(const QString& message);
    QString message() const { return m_message; }
    void setStep(int step);
    void setOverlays(const OverlaySettings& overlays);
    /// Where a set of runs looked: per step, the fraction of runs in each cell of a rows x cols
    /// grid over the image, drawn in magenta over the current step (empty: none). Kept until
    /// cleared (the page clears it when the input or the model changes).
    void setVisits(const std::vector<std::vector<double>>& perStep, int rows, int cols);
    void clearVisits() { setVisits({}, 0, 0); }
    bool hasVisits() const { return !m_visits.empty(); }

    const QImage& image() const { return m_image; }
    const std::optional<Trace>& trace() const { return m_trace; }
    int step() const { return m_step; }
    const OverlaySettings& overlays() const { return m_overlays; }

    /// Zoom: widget pixels per image pixel.
    double zoom() const { return m_zoom; }
    void setZoom(double zoom, QPointF anchorWidget);
    void fitToWindow();
    void actualSize();
    /// Maps image pixel coordinates to widget coordinates under the current zoom and pan.
    QPointF imageToWidget(QPointF imagePoint) const;
    /// Cell `cell` of a rows x cols grid over the image, in image pixels (integer boundaries:
    /// column c spans width*c/cols .. width*(c+1)/cols, as in the CLI renderer).
    QRectF cellRect(int rows, int cols, int cell) const;
    /// One colour scale for every step of the trace (its largest attention) instead of each
    /// step's own, so colours compare across steps. Clicking the legend toggles it.
    void setSameScale(bool same);
    bool sameScale() const { return m_sameScale; }
    /// The attention the brightest colour stands for (the legend's right end).
    double colourScaleMax() const { return m_heatmapMax; }
    /// The largest value the current step's map holds (its own scale, before any floor).
    double stepMax() const { return m_stepMax; }
    /// The brightest colour stands for at least `floor` (0: the map's own scale): two canvases
    /// side by side share one scale this way.
    void setScaleFloor(double floor);
    /// The words right of the legend's bar (empty: "attention p, step N ...").
    void setLegendText(const QString& text);
    /// The grid cell of the current step under a widget point (none off the image or without a grid).
    std::optional<int> cellAt(QPointF widgetPoint) const;
    /// What hovering a widget point reads out: the cell's row, column and attention at this step.
    QString hoverText(QPointF widgetPoint) const;

    /// The current step with its overlays at `scale` device pixels per image pixel, legend
    /// below the image (export).
    /// Presentation: outlines and labels `scale` times thicker and larger (1..4; 1 normal).
    void setLineScale(double scale);
    double lineScale() const { return m_lineScale; }
    /// The current step's chosen cells with how often each was drawn (K samples can repeat one).
    QMap<int, int> chosenCellCounts() const;
    QImage renderToImage(int scale) const;
    /// Draws the image and overlays with `imageToDevice`; the legend goes inside `legendArea`
    /// when it is valid (device coordinates). Used by paintEvent and the exports (PNG, SVG).
    void paintScene(QPainter& painter, const QTransform& imageToDevice, QRectF legendArea) const;

Q_SIGNALS:
    void zoomChanged(double zoom);
    void sameScaleChanged(bool same);

protected:
    void paintEvent(QPaintEvent* event) override;
    /// For a Gaussian location policy (RAM): what the amber density, the dashed circle and the boxes are.
    void paintPolicyLegend(QPainter& painter, QRectF area) const;
    /// Row numbers down the left edge and column numbers along the top, as the side panel counts
    /// them (from 0), when the cells are large enough on screen to hold them.
    void paintGridLabels(QPainter& painter, const QTransform& imageToDevice, int rows, int cols, double sx,
                         double sy) const;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QTransform imageTransform() const;
    void rebuildHeatmap();
    void paintHeatmap(QPainter& p, const QTransform& t) const;
    void paintChoices(QPainter& p, const QTransform& t) const;
    void paintTruth(QPainter& p, const QTransform& t) const;
    void paintPath(QPainter& p, const QTransform& t) const;
    void paintChosen(QPainter& p, const QTransform& t) const;
    void paintLegend(QPainter& p, QRectF area) const;
    void paintVisits(QPainter& p, const QTransform& t) const;
    /// Centres of the chosen cells / points of step s, image pixels.
    QVector<QPointF> choiceCentres(int s) const;

    QImage m_image;
    std::optional<Trace> m_trace;
    QImage m_heatmap;      ///< rows x cols ARGB cells of the current step (empty: none)
    double m_heatmapMax = 0;
    double m_stepMax = 0;
    double m_scaleFloor = 0;
    QString m_legendText;
    bool m_sameScale = false;
    QRectF m_legendRect;  ///< where paintEvent drew the legend (widget coordinates)
    int m_step = 0;
    std::vector<std::vector<double>> m_visits;
    int m_visitRows = 0, m_visitCols = 0;
    OverlaySettings m_overlays;
    double m_lineScale = 1.0;
    QPen outline(const QColor& colour, double width, Qt::PenStyle style = Qt::SolidLine) const;
    QString m_message;
    double m_zoom = 1;
    QPointF m_offset;      ///< widget position of image pixel (0, 0)
    bool m_fitted = true;  ///< keep fitting on resize until the user zooms or pans
    std::optional<QPoint> m_dragFrom;
};

}  // namespace saccade::ui
