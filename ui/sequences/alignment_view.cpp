#include "ui/sequences/alignment_view.h"

#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/image_convert.h"
#include "render/alignment_render.h"

namespace saccade::ui {

namespace {
constexpr int kTitleHeight = 22;
AlignmentRenderOptions viewOptions(int step) {
    AlignmentRenderOptions o;
    o.cell = 24;
    o.highlight = step;
    return o;
}
}  // namespace

AlignmentView::AlignmentView(QWidget* parent) : QWidget(parent) {
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("alignmentTitle"));
    m_title->setTextFormat(Qt::PlainText);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addStretch(1);
    setMinimumSize(200, 160);
}

void AlignmentView::setTranslation(const std::optional<SeqTranslation>& t, const QString& title, const QString& note) {
    m_translation = t;
    m_title->setText(title);
    m_note = note;
    if (m_translation) m_step = std::clamp(m_step, 0, std::max(0, int(m_translation->tokens.size()) - 1));
    redraw();
}

void AlignmentView::setStep(int step) {
    if (!m_translation || step < 0 || step >= int(m_translation->tokens.size()) || step == m_step) return;
    m_step = step;
    redraw();
}

void AlignmentView::setHeadView(bool headView) {
    if (headView == m_headView) return;
    m_headView = headView;
    redraw();
}

void AlignmentView::redraw() {
    if (!m_translation) m_image = QImage();
    else if (m_headView) m_image = toQImage(renderHeadView(*m_translation, viewOptions(m_step)));
    else m_image = toQImage(renderAlignment(*m_translation, viewOptions(m_step)));
    update();
    if (parentWidget())  // the views beside it may now draw at another scale
        for (auto* beside : parentWidget()->findChildren<AlignmentView*>(Qt::FindDirectChildrenOnly)) beside->update();
}

double AlignmentView::fitScale() const {
    if (m_image.isNull()) return 0;
    const QRect area(0, kTitleHeight + 4, width(), height() - kTitleHeight - 4);
    return std::min({1.6, double(area.width()) / m_image.width(), double(area.height()) / m_image.height()});
}

double AlignmentView::drawnScale() const {
    double scale = fitScale();
    if (parentWidget())
        for (const auto* beside : parentWidget()->findChildren<AlignmentView*>(Qt::FindDirectChildrenOnly))
            if (beside != this && beside->isVisible() && !beside->m_image.isNull()) scale = std::min(scale, beside->fitScale());
    return scale;
}

QRect AlignmentView::imageRect() const {
    if (m_image.isNull()) return {};
    const double scale = drawnScale();
    const QSize size(int(m_image.width() * scale), int(m_image.height() * scale));
    return {0, kTitleHeight + 4, size.width(), size.height()};
}

void AlignmentView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    if (m_image.isNull()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(8, kTitleHeight + 8, -8, -8), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_note);
        return;
    }
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.drawImage(imageRect(), m_image);
}

void AlignmentView::mousePressEvent(QMouseEvent* event) {
    const QRect r = imageRect();
    if (!m_translation || m_headView || r.isEmpty() || !r.contains(event->pos())) return;
    const double scale = double(r.width()) / m_image.width();
    const int row = alignmentRowAt(*m_translation, viewOptions(m_step), int((event->pos().x() - r.x()) / scale),
                                   int((event->pos().y() - r.y()) / scale));
    if (row >= 0) {
        setStep(row);
        Q_EMIT stepClicked(row);
    }
}

}  // namespace saccade::ui
