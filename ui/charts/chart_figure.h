#pragma once
// A chart drawn at a figure's size: laid out anew for the target (axes, labels and titles placed
// for that size, not scaled up from the panel's), while its widget keeps its own size.

class QPainter;
class QRectF;
class QWidget;

namespace saccade::ui {

/// Draws `view` into `target`, laid out at the target's size, when it is a chart view; false
/// (nothing drawn) for any other widget.
bool drawChartAt(QWidget& view, QPainter& painter, const QRectF& target);
/// Whether `view` is a chart view (drawChartAt draws it).
bool isChartView(const QWidget& view);

}  // namespace saccade::ui
