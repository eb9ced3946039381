#include "charts/chart_figure.h"

#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>

namespace saccade::ui {

bool isChartView(const QWidget& view) { return qobject_cast<const QChartView*>(&view) != nullptr; }

bool drawChartAt(QWidget& view, QPainter& painter, const QRectF& target) {
    auto* chartView = qobject_cast<QChartView*>(&view);
    QChart* chart = chartView ? chartView->chart() : nullptr;
    if (!chart || !chart->scene()) return false;
    const QSizeF before = chart->size();
    auto layOut = [chart](const QSizeF& size) {
        chart->resize(size);
        if (chart->layout()) chart->layout()->activate();
    };
    layOut(target.size());
    chart->scene()->render(&painter, target, QRectF(chart->pos(), target.size()));
    layOut(before);
    return true;
}

}  // namespace saccade::ui
