#include "ui/charts/sweep_map_view.h"
#include "ui/number_format.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "render/sweep_render.h"
#include "render/trace_render.h"

namespace saccade::ui {

namespace {

constexpr int kLeft = 34, kTop = 8, kBottom = 50, kRight = 8;  // the bottom holds the dx axis and the colour scale


}  // namespace

SweepMapView::SweepMapView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sweepMap"));
    setMouseTracking(true);
    setMinimumSize(200, 200);
}

void SweepMapView::setResult(const SweepResult& result, SweepMetric metric) {
    m_result = result;
    m_metric = metric;
    m_selected.reset();
    update();
}

void SweepMapView::setMetric(SweepMetric metric) {
    m_metric = metric;
    update();
}

void SweepMapView::clear() {
    m_result.reset();
    m_selected.reset();
    update();
}

void SweepMapView::setSelected(int dx, int dy) {
    m_selected = std::make_pair(dx, dy);
    update();
}

int SweepMapView::cellPixels() const {
    if (!m_result) return 1;
    const auto& o = m_result->probe;
    const int nx = o.dxMax - o.dxMin + 1, ny = o.dyMax - o.dyMin + 1;
    return std::max(2, std::min((width() - kLeft - kRight) / nx, (height() - kTop - kBottom) / ny));
}

QPoint SweepMapView::origin() const { return {kLeft, kTop}; }

QRect SweepMapView::squareOf(int dx, int dy) const {
    if (!m_result) return {};
    const auto& o = m_result->probe;
    if (dx < o.dxMin || dx > o.dxMax || dy < o.dyMin || dy > o.dyMax) return {};
    const int c = cellPixels();
    return QRect(origin() + QPoint((dx - o.dxMin) * c, (dy - o.dyMin) * c), QSize(c, c));
}

const SweepPoint* SweepMapView::pointAt(const QPoint& pos) const {
    if (!m_result) return nullptr;
    for (const auto& p : m_result->points)
        if (squareOf(p.dx, p.dy).contains(pos)) return &p;
    return nullptr;
}

QString SweepMapView::csv() const {
    QString out = QStringLiteral("dx,dy,%1\n").arg(QString::fromStdString(sweepMetricName(m_metric)));
    if (!m_result) return out;
    for (const auto& p : m_result->points) {
        const double v = sweepValue(p, m_metric);
        out += QStringLiteral("%1,%2,%3\n").arg(p.dx).arg(p.dy).arg(v < 0 ? QString() : QString::number(v, 'g', 6));
    }
    return out;
}

void SweepMapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(38, 40, 44));
    if (!m_result) {
        p.setPen(QColor(200, 200, 200));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("Run a sweep to see where the model fails."));
        return;
    }
    const auto& o = m_result->probe;
    const int c = cellPixels();
    for (const auto& pt : m_result->points) {
        const double v = sweepValue(pt, m_metric);
        QColor colour(90, 90, 90);
        if (v >= 0) {
            const auto rgb = infernoColour(v);
            colour = QColor(rgb[0], rgb[1], rgb[2]);
        }
        p.fillRect(squareOf(pt.dx, pt.dy), colour);
    }
    const int nx = o.dxMax - o.dxMin + 1, ny = o.dyMax - o.dyMin + 1;
    const QRect area(origin(), QSize(nx * c, ny * c));
    QPen solid(QColor(255, 255, 255), 1.5), dashed(QColor(170, 170, 170), 1, Qt::DashLine);
    for (int d = o.dxMin; d <= o.dxMax + 1; ++d) {
        const int x = area.left() + (d - o.dxMin) * c;
        if (edgeOnGridLine(d, o.cellSize)) p.setPen(solid), p.drawLine(x, area.top(), x, area.bottom());
        if (edgeOnGridLine(d + o.objectSize, o.cellSize)) p.setPen(dashed), p.drawLine(x, area.top(), x, area.bottom());
    }
    for (int d = o.dyMin; d <= o.dyMax + 1 && ny > 1; ++d) {
        const int y = area.top() + (d - o.dyMin) * c;
        if (edgeOnGridLine(d, o.cellSize)) p.setPen(solid), p.drawLine(area.left(), y, area.right(), y);
        if (edgeOnGridLine(d + o.objectSize, o.cellSize)) p.setPen(dashed), p.drawLine(area.left(), y, area.right(), y);
    }
    if (m_selected) {
        p.setPen(QPen(QColor(0, 255, 255), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(squareOf(m_selected->first, m_selected->second).adjusted(1, 1, -1, -1));
    }
    p.setPen(QColor(220, 220, 220));
    const int step = std::max(1, (nx + 5) / 6);
    for (int d = o.dxMin; d <= o.dxMax; d += step)
        p.drawText(QRect(area.left() + (d - o.dxMin) * c - 10, area.bottom() + 2, c + 20, 14), Qt::AlignCenter, QString::number(d));
    for (int d = o.dyMin; d <= o.dyMax; d += std::max(1, (ny + 5) / 6))
        p.drawText(QRect(0, area.top() + (d - o.dyMin) * c, kLeft - 4, c), Qt::AlignRight | Qt::AlignVCenter, QString::number(d));
    p.drawText(QRect(area.left(), area.bottom() + 14, area.width(), 14), Qt::AlignCenter, tr("dx (px from the grid line); dy down"));
    // The colour scale: what a square's colour says, from 0% to 100%.
    const QRect bar(area.left(), area.bottom() + 32, std::min(160, std::max(60, area.width() / 2)), 10);
    for (int x = 0; x < bar.width(); ++x) {
        const auto rgb = infernoColour(double(x) / std::max(1, bar.width() - 1));
        p.fillRect(QRect(bar.left() + x, bar.top(), 1, bar.height()), QColor(rgb[0], rgb[1], rgb[2]));
    }
    p.setPen(QColor(220, 220, 220));
    p.drawText(QRect(bar.left() - 30, bar.top() - 2, 28, 14), Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0%"));
    p.drawText(QRect(bar.right() + 4, bar.top() - 2, width() - bar.right() - 8, 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("100%  %1 (grey: not defined)").arg(QString::fromStdString(sweepMetricName(m_metric))));
}

void SweepMapView::mousePressEvent(QMouseEvent* event) {
    if (const auto* pt = pointAt(event->position().toPoint())) {
        setSelected(pt->dx, pt->dy);
        Q_EMIT positionClicked(pt->dx, pt->dy);
    }
}

void SweepMapView::mouseMoveEvent(QMouseEvent* event) {
    const auto* pt = pointAt(event->position().toPoint());
    if (!pt) return QToolTip::hideText();
    const QString det = QString::fromStdString(m_result->deterministicRule);
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("dx %1, dy %2\n%3: %4\nsample runs right: %5\nhit rate: %6\nattention mass on the object: %7")
                           .arg(pt->dx).arg(pt->dy).arg(det)
                           .arg(pt->truth < 0 ? tr("no class") : pt->deterministicLabel == pt->truth ? tr("right") : tr("wrong"))
                           .arg(formatPercent(pt->sampleAccuracy, 0)).arg(formatPercent(pt->sampleRuns ? pt->hitRate : -1, 0)).arg(formatPercent(pt->mass, 0)),
                       this);
}

}  // namespace saccade::ui
