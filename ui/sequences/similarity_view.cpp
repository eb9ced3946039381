#include "ui/sequences/similarity_view.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace saccade::ui {

namespace {
constexpr int kPad = 4, kGap = 3, kLabelGap = 2;
}

SimilarityView::SimilarityView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("similarityView"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setMouseTracking(true);
}

void SimilarityView::setSimilarity(const SentenceSimilarity& s) {
    m_similarity = s;
    updateGeometry();
    update();
}

void SimilarityView::clear() {
    m_similarity.reset();
    updateGeometry();
    update();
}

double SimilarityView::scale() const {
    double top = 0;
    if (m_similarity)
        for (const auto& side : m_similarity->sentences)
            for (double v : side.values) top = std::max(top, std::abs(v));
    return top > 0 ? top : 1;
}

SimilarityView::Layout SimilarityView::layoutFor(int width) const {
    Layout l;
    const QFontMetrics fm(font());
    const int line = fm.height() + 2 * kPad;
    int y = 0;
    for (int side = 0; side < 2; ++side) {
        const QString label = side == 0 ? tr("First sentence:") : tr("Second sentence:");
        l.labels[side] = QRect(0, y, fm.horizontalAdvance(label) + kPad, fm.height());
        y += fm.height() + kLabelGap;
        int x = 0;
        if (!m_similarity) continue;
        for (const auto& piece : m_similarity->sentences[side].pieces) {
            const int w = fm.horizontalAdvance(QString::fromStdString(piece)) + 2 * kPad;
            if (x > 0 && x + w > width) {
                x = 0;
                y += line + kGap;
            }
            l.boxes[side].push_back(QRect(x, y, std::min(w, width), line));
            x += w + kGap;
        }
        y += line + 2 * kGap;
    }
    l.height = y;
    return l;
}

int SimilarityView::heightForWidth(int width) const { return layoutFor(std::max(width, 1)).height; }
QSize SimilarityView::sizeHint() const { return {400, heightForWidth(std::max(width(), 400))}; }

QRect SimilarityView::pieceRect(int side, int k) const {
    const auto l = layoutFor(width());
    if (side < 0 || side > 1 || k < 0 || k >= l.boxes[side].size()) return {};
    return l.boxes[side][k];
}

QColor SimilarityView::pieceColour(int side, int k) const {
    if (!m_similarity || side < 0 || side > 1 || k < 0 || k >= int(m_similarity->sentences[side].values.size())) return {};
    const double v = m_similarity->sentences[side].values[size_t(k)] / scale();  // -1..1
    const QColor towards = v >= 0 ? QColor(230, 120, 20) : QColor(40, 110, 210);
    const double a = std::min(1.0, std::abs(v));
    return QColor(int(255 + (towards.red() - 255) * a), int(255 + (towards.green() - 255) * a),
                  int(255 + (towards.blue() - 255) * a));
}

void SimilarityView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const auto l = layoutFor(width());
    for (int side = 0; side < 2; ++side) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(l.labels[side], Qt::AlignLeft | Qt::AlignVCenter, side == 0 ? tr("First sentence:") : tr("Second sentence:"));
        if (!m_similarity) continue;
        const auto& s = m_similarity->sentences[side];
        for (int k = 0; k < l.boxes[side].size(); ++k) {
            const QRect box = l.boxes[side][k];
            const QColor fill = pieceColour(side, k);
            p.fillRect(box, fill);
            p.setPen(QColor(120, 120, 120));
            p.drawRect(box.adjusted(0, 0, -1, -1));
            p.setPen(fill.lightness() < 110 ? Qt::white : Qt::black);
            p.drawText(box, Qt::AlignCenter, QString::fromStdString(s.pieces[size_t(k)]));
        }
    }
}

bool SimilarityView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip && m_similarity) {
        const auto* help = static_cast<QHelpEvent*>(e);
        const auto l = layoutFor(width());
        for (int side = 0; side < 2; ++side)
            for (int k = 0; k < l.boxes[side].size(); ++k)
                if (l.boxes[side][k].contains(help->pos())) {
                    const auto& s = m_similarity->sentences[side];
                    QToolTip::showText(help->globalPos(), tr("'%1': %2 of the similarity's change from the baseline (%3)")
                                                              .arg(QString::fromStdString(s.pieces[size_t(k)]).toHtmlEscaped())
                                                              .arg(s.values[size_t(k)], 0, 'g', 3)
                                                              .arg(s.difference, 0, 'g', 3),
                                       this);
                    return true;
                }
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    return QWidget::event(e);
}

}  // namespace saccade::ui
