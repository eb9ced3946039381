#include "ui/charts/chart_figure.h"

#include <QAbstractAxis>
#include <QChart>
#include <QLegend>
#include <QChartView>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPainter>

namespace saccade::ui {

namespace {
QFont inPixels(QFont font, int size) {
    font.setPixelSize(size);
    return font;
}
}  // namespace

FigureType::FigureType(QChart* chart)
    : m_chart(chart), m_title(chart->titleFont()), m_legend(chart->legend()->font()) {
    for (QAbstractAxis* axis : chart->axes()) {
        m_axes.push_back({axis, axis->labelsFont(), axis->titleFont()});
        axis->setLabelsFont(inPixels(axis->labelsFont(), kFigureTickPixels));
        axis->setTitleFont(inPixels(axis->titleFont(), kFigureTickPixels + 1));
    }
    chart->setTitleFont(inPixels(m_title, kFigureTickPixels + 2));
    chart->legend()->setFont(inPixels(m_legend, kFigureTickPixels));
}

FigureType::~FigureType() {
    for (const auto& a : m_axes) {
        a.axis->setLabelsFont(a.labels);
        a.axis->setTitleFont(a.title);
    }
    m_chart->setTitleFont(m_title);
    m_chart->legend()->setFont(m_legend);
}

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
    {
        const FigureType type(chart);
        layOut(target.size());
        chart->scene()->render(&painter, target, QRectF(chart->pos(), target.size()));
    }
    layOut(before);
    return true;
}

}  // namespace saccade::ui
