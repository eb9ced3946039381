// The attention canvas's legend row: the colour scale of the heat map (and what the dashed marks
// mean), or, for a Gaussian policy, what its density, circle and boxes show.
#include "ui/attention/attention_canvas.h"

#include <algorithm>

#include <QLinearGradient>
#include <QPainter>

#include "render/trace_render.h"

namespace saccade::ui {

void AttentionCanvas::paintLegend(QPainter& p, QRectF area) const {
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    QFont font = p.font();
    font.setPixelSize(11);  // the legend row has a fixed height
    p.setFont(font);
    const QString words = !m_legendText.isEmpty() ? m_legendText
                          : m_sameScale           ? tr("attention p, step %1 (all steps' scale)").arg(m_step + 1)
                          : m_scaleFloor > 0      ? tr("attention p, step %1 (shared scale)").arg(m_step + 1)
                                                  : tr("attention p, step %1 (own scale)").arg(m_step + 1);
    // The words to the colour bar's right whole: the bar gives way (down to 60 px) in a narrow pane.
    const QRectF bar(area.left(), area.top() + 4, std::clamp(area.width() - 8 - p.fontMetrics().horizontalAdvance(words), 60.0, 240.0), 10);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 10; ++i) {
        const auto c = infernoColour(i / 10.0);  // as the heat map is drawn
        gradient.setColorAt(i / 10.0, QColor(c[0], c[1], c[2]));
    }
    p.fillRect(bar, gradient);
    p.setPen(QColor(210, 210, 210));
    p.drawRect(bar);
    const QRectF labels(bar.left(), bar.bottom() + 2, bar.width(), 16);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0"));
    p.drawText(labels, Qt::AlignRight | Qt::AlignTop, QString::number(m_heatmapMax, 'f', 3));
    p.drawText(QRectF(bar.right() + 8, area.top(), area.right() - bar.right() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter, words);
    if (!m_visits.empty())
        p.drawText(QRectF(bar.right() + 8, area.top() + 16, area.right() - bar.right() - 8, 16),
                   Qt::AlignLeft | Qt::AlignVCenter, tr("dashed: share of the runs that looked there"));
    p.restore();
}

void AttentionCanvas::paintPolicyLegend(QPainter& p, QRectF area) const {
    if (!m_trace || !m_overlays.chosen || m_step >= int(m_trace->steps.size())) return;
    const auto& step = m_trace->steps[size_t(m_step)];
    if (!step.gaussian) return;
    p.save();
    QFont font = p.font();
    font.setPixelSize(11);  // the legend row has a fixed height
    p.setFont(font);
    // The swatch is drawn as the canvas draws the density: amber fading out from the mean.
    const QRectF swatch(area.left(), area.top() + 2, 28, 14);
    QLinearGradient fade(swatch.topLeft(), swatch.topRight());
    fade.setColorAt(0, QColor(255, 196, 0, 200));
    fade.setColorAt(1, QColor(255, 196, 0, 0));
    p.fillRect(swatch, fade);
    p.setPen(QColor(210, 210, 210));
    p.drawText(QRectF(swatch.right() + 8, area.top(), area.width() - swatch.width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               tr("policy at step %1: Gaussian; dashed circle = 1σ (%2 px); boxes = glimpse scales")
                   .arg(m_step + 1).arg(step.gaussian->stdX, 0, 'f', 1));
    p.restore();
}

}  // namespace saccade::ui
