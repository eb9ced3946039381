#pragma once
// A chart drawn at a figure's size: laid out anew for the target (axes, labels and titles placed
// for that size, not scaled up from the panel's), while its widget keeps its own size.

#include <QFont>
#include <QList>

class QAbstractAxis;
class QChart;
class QPainter;
class QRectF;
class QWidget;

namespace saccade::ui {

/// The pixel size of a drawn figure's tick labels and legend (axis titles 1 px larger, the
/// chart's title 2): a panel's 8-point ticks are tiny in a 900-pixel figure.
constexpr int kFigureTickPixels = 13;

/// A chart in a figure's type while it lives; the panel's own type comes back when it goes.
class FigureType {
public:
    explicit FigureType(QChart* chart);
    ~FigureType();
    FigureType(const FigureType&) = delete;
    FigureType& operator=(const FigureType&) = delete;

private:
    struct Axis {
        QAbstractAxis* axis;
        QFont labels, title;
    };
    QChart* m_chart;
    QList<Axis> m_axes;
    QFont m_title, m_legend;
};

/// Draws `view` into `target`, laid out at the target's size, when it is a chart view; false
/// (nothing drawn) for any other widget.
bool drawChartAt(QWidget& view, QPainter& painter, const QRectF& target);
/// Whether `view` is a chart view (drawChartAt draws it).
bool isChartView(const QWidget& view);

}  // namespace saccade::ui
