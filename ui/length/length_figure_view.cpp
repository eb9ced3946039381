#include "ui/length/length_figure_view.h"

#include <QPainter>

#include "ui/image_convert.h"
#include "render/length_render.h"

namespace saccade::ui {

LengthFigureView::LengthFigureView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lengthFigure"));
    setMinimumSize(720, 300);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void LengthFigureView::setView(const LengthView& view) {
    m_view = view;
    redraw();
}

void LengthFigureView::clear(const QString& message) {
    m_view.reset();
    m_image = QImage();
    m_message = message;
    update();
}

void LengthFigureView::redraw() {
    if (m_view) m_image = toQImage(lengthViewFigure(*m_view, width(), height()).toImage());
    update();
}

void LengthFigureView::resizeEvent(QResizeEvent*) { redraw(); }

void LengthFigureView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (m_image.isNull()) {
        p.setPen(QColor(90, 90, 90));
        p.drawText(rect(), Qt::AlignCenter, m_message);
        return;
    }
    p.drawImage(QPoint(0, 0), m_image);
}

}  // namespace saccade::ui
