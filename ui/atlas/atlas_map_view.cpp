#include "ui/atlas/atlas_map_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

#include "render/atlas_render.h"

namespace saccade::ui {

namespace {
QColor toQColor(const Rgb& c) { return QColor(c[0], c[1], c[2]); }
}  // namespace

AtlasMapView::AtlasMapView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("atlasMap"));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void AtlasMapView::setAtlas(const Atlas& atlas) {
    m_atlas = atlas;
    m_message.clear();
    if (!atlas.points.empty()) {
        m_minX = m_maxX = atlas.points[0].x;
        m_minY = m_maxY = atlas.points[0].y;
    }
    m_lastPosition[0] = m_lastPosition[1] = 1;
    for (const auto& p : atlas.points) {
        m_minX = std::min(m_minX, p.x), m_maxX = std::max(m_maxX, p.x);
        m_minY = std::min(m_minY, p.y), m_maxY = std::max(m_maxY, p.y);
        m_lastPosition[p.query] = std::max(m_lastPosition[p.query], p.position);
    }
    update();
}

void AtlasMapView::clear(const QString& message) {
    m_atlas.reset();
    m_message = message;
    update();
}

QRectF AtlasMapView::plotRect() const { return QRectF(rect()).adjusted(8, 30, -8, -8); }

QPointF AtlasMapView::drawnAt(int index) const {
    const auto& p = m_atlas->points[std::size_t(index)];
    const QRectF r = plotRect();
    // One scale for both axes: distances read alike across and down.
    const double span = std::max({m_maxX - m_minX, m_maxY - m_minY, 1e-12});
    const double unit = std::min(r.width(), r.height()) * 0.94 / span;
    return {r.center().x() + (p.x - (m_minX + m_maxX) / 2) * unit, r.center().y() - (p.y - (m_minY + m_maxY) / 2) * unit};
}

int AtlasMapView::pointAt(const QPointF& at) const {
    if (!m_atlas) return -1;
    int best = -1;
    double bestD = 36;  // within 6 px
    for (int i = 0; i < int(m_atlas->points.size()); ++i) {
        const QPointF d = drawnAt(i) - at;
        const double d2 = d.x() * d.x() + d.y() * d.y();
        if (d2 < bestD) best = i, bestD = d2;
    }
    return best;
}

QString AtlasMapView::describe(int index) const {
    const auto& p = m_atlas->points[std::size_t(index)];
    const QString unit = m_atlas->positions == "patch" ? tr("patch") : tr("token");
    QString text = tr("%1 '%2' (%3 %4) of input %5")
                       .arg(p.query ? tr("query") : tr("key"), QString::fromStdString(p.label), unit)
                       .arg(p.position)
                       .arg(p.input);
    if (p.query && p.attends >= 0) text += tr("\nattends most to %1 %2").arg(unit).arg(p.attends);
    return text;
}

void AtlasMapView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    if (!m_atlas) {
        painter.setPen(QColor(90, 90, 90));
        painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    // The legend: the two ramps, first position to last.
    const QString unit = m_atlas->positions == "patch" ? tr("patch") : tr("token");
    const int half = width() / 2;
    for (int q = 0; q < 2; ++q) {
        const int x0 = 8 + q * half;
        for (int i = 0; i < 30; ++i) painter.fillRect(QRectF(x0 + i * 2, 8, 2, 12), toQColor(atlasColour(q == 0, i / 29.0)));
        painter.setPen(QColor(60, 60, 60));
        const QString label = q == 0 ? tr("queries, first to last %1").arg(unit) : tr("keys, first to last %1").arg(unit);
        painter.drawText(QPointF(x0 + 66, 8 + painter.fontMetrics().ascent() - 1), label);
    }
    painter.setPen(QColor(210, 210, 210));
    painter.drawRect(plotRect());
    painter.setPen(Qt::NoPen);
    for (int i = 0; i < int(m_atlas->points.size()); ++i) {
        const auto& p = m_atlas->points[std::size_t(i)];
        painter.setBrush(toQColor(atlasColour(p.query, double(p.position) / m_lastPosition[p.query])));
        painter.drawEllipse(drawnAt(i), 2.2, 2.2);
    }
}

void AtlasMapView::mouseMoveEvent(QMouseEvent* event) {
    const int i = pointAt(event->position());
    if (i >= 0)
        QToolTip::showText(event->globalPosition().toPoint(), describe(i), this);
    else
        QToolTip::hideText();
}

void AtlasMapView::mousePressEvent(QMouseEvent* event) {
    const int i = pointAt(event->position());
    if (i < 0) return;
    const auto& p = m_atlas->points[std::size_t(i)];
    Q_EMIT pointChosen(p.input, p.position, p.query);
}

}  // namespace saccade::ui
