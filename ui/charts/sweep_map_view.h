#pragma once
// The failure map of a boundary sweep: one square per offset (dx, dy) coloured by the chosen
// metric (inferno, grey where undefined), solid lines where the object's near edge lies on a grid
// line and dashed ones where its far edge does (between them it straddles a cell border). Hover
// shows the figures; a click picks a position.

#include <QString>
#include <QWidget>
#include <optional>

#include "analysis/runs/boundary_sweep.h"

namespace saccade::ui {

class SweepMapView : public QWidget {
    Q_OBJECT

public:
    explicit SweepMapView(QWidget* parent = nullptr);

    void setResult(const SweepResult& result, SweepMetric metric);
    void setMetric(SweepMetric metric);
    void clear();
    void setSelected(int dx, int dy);
    /// The square of an offset in widget pixels (empty when there is no such offset).
    QRect squareOf(int dx, int dy) const;
    /// dx, dy, value of the metric per position.
    QString csv() const;
    bool hasResult() const { return m_result.has_value(); }
    QSize sizeHint() const override { return {420, 420}; }

Q_SIGNALS:
    void positionClicked(int dx, int dy);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    const SweepPoint* pointAt(const QPoint& pos) const;
    int cellPixels() const;
    QPoint origin() const;

    std::optional<SweepResult> m_result;
    SweepMetric m_metric = SweepMetric::SampleAccuracy;
    std::optional<std::pair<int, int>> m_selected;
};

}  // namespace saccade::ui
