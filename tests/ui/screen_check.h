#pragma once
// What the screen shows, checked the way a person reads it: every visible text that does not fit
// the room its widget has (elided by Qt, elided by our code with the whole text in its tool tip,
// clipped by its widget, or drawn as "…" on a chart), and widgets laid out over one another.
// Each finding is one line naming the widget, its text and the room it had.

#include <QAbstractButton>
#include <QCheckBox>
#include <QBarCategoryAxis>
#include <QChartView>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QTableView>
#include <QLabel>
#include <QPushButton>
#include <QLayout>
#include <QListView>
#include <QRadioButton>
#include <QRegularExpression>
#include <QStackedLayout>
#include <QScrollBar>
#include <QStatusBar>
#include <QStyleOptionButton>
#include <QStyleOptionComboBox>
#include <QTabBar>
#include <QTextDocument>
#include <QToolButton>
#include <QWidget>

namespace screen_check {

inline QString name(const QWidget* w) {
    QString n = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty()) n += QLatin1Char(' ') + w->objectName();
    return n;
}

// Shown and not scrolled or clipped out of sight by any of its parents (a scroll area's own
// visible region is empty: its viewport covers it).
inline bool onScreen(const QWidget* w) {
    if (!w->isVisible()) return false;
    const QWidget* top = w->window();
    QRect seen(w->mapTo(top, QPoint(0, 0)), w->size());
    for (const QWidget* p = w->parentWidget(); p && p != top; p = p->parentWidget())
        seen &= QRect(p->mapTo(top, QPoint(0, 0)), p->size());
    return !seen.isEmpty();
}

inline int widestLine(const QFontMetrics& fm, const QString& text) {
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) widest = qMax(widest, fm.horizontalAdvance(line));
    return widest;
}

inline QString plainOf(const QString& text) {
    return text.contains(QLatin1Char('&')) ? QString(text).remove(QRegularExpression(QStringLiteral("&(?!&)"))) : text;
}

// Our own code elides a long text and keeps the whole of it in the tool tip.
inline bool elidedByCode(const QString& shown, const QString& tip) {
    return shown.size() > 1 && shown.endsWith(QChar(0x2026)) && tip.size() > shown.size() &&
           tip.startsWith(shown.left(shown.size() - 1).trimmed());
}

inline QString labelCut(const QLabel* l) {
    const QString text = l->text();
    if (text.isEmpty() || !l->pixmap().isNull()) return {};
    if (elidedByCode(text, l->toolTip())) return QStringLiteral("\"%1\" elided (whole: \"%2\")").arg(text, l->toolTip());
    const int m = l->margin();
    QRect room = l->contentsRect().adjusted(m, m, -m, -m);
    if (l->indent() > 0) room.setLeft(room.left() + l->indent());
    const bool rich = l->textFormat() == Qt::RichText || (l->textFormat() == Qt::AutoText && Qt::mightBeRichText(text));
    int needW = 0, needH = 0;
    if (rich) {
        QTextDocument doc;
        doc.setDefaultFont(l->font());
        doc.setDocumentMargin(0);
        doc.setHtml(text);
        if (l->wordWrap()) doc.setTextWidth(room.width());
        needW = l->wordWrap() ? 0 : int(doc.idealWidth());
        needH = int(doc.size().height());
    } else {
        const QFontMetrics fm(l->font());
        if (l->wordWrap()) needH = fm.boundingRect(QRect(0, 0, room.width(), 100000), Qt::TextWordWrap, text).height();
        else {
            needW = widestLine(fm, plainOf(text));
            needH = fm.height() * int(text.count(QLatin1Char('\n')) + 1);
        }
    }
    if (needW > room.width() + 1)
        return QStringLiteral("\"%1\" needs %2 px wide, has %3").arg(text.left(80)).arg(needW).arg(room.width());
    if (needH > room.height() + 2)
        return QStringLiteral("\"%1\" needs %2 px tall, has %3").arg(text.left(80)).arg(needH).arg(room.height());
    return {};
}

inline QString buttonCut(const QAbstractButton* b) {
    const QString text = plainOf(b->text());
    if (text.isEmpty()) return {};
    if (auto* tool = qobject_cast<const QToolButton*>(b); tool && tool->toolButtonStyle() == Qt::ToolButtonIconOnly) return {};
    if (elidedByCode(b->text(), b->toolTip())) return QStringLiteral("\"%1\" elided").arg(text);
    const QFontMetrics fm(b->font());
    int need = widestLine(fm, text);
    if (auto* push = qobject_cast<const QPushButton*>(b)) {  // its size hint has a floor of 80 px in some styles
        if (!b->icon().isNull()) need += b->iconSize().width() + 4;
        QStyleOptionButton opt;
        opt.initFrom(push);
        opt.text = push->text();
        opt.features = push->menu() ? QStyleOptionButton::HasMenu : QStyleOptionButton::None;
        const int room = b->style()->subElementRect(QStyle::SE_PushButtonContents, &opt, b).width();
        if (room + 1 < need) return QStringLiteral("\"%1\" needs %2 px, has %3").arg(text).arg(need).arg(room);
        return {};
    } else {
        need = b->sizeHint().width();  // text, icon, indicator and menu arrow, as the style lays them out
    }
    if (b->width() + 1 < need) return QStringLiteral("\"%1\" needs %2 px, has %3").arg(text).arg(need).arg(b->width());
    return {};
}

inline QString comboCut(const QComboBox* c) {
    if (c->count() > 0 && c->currentIndex() >= 0 && c->currentText().isEmpty() && c->isEnabled())
        return QStringLiteral("shows an empty entry (index %1 of %2)").arg(c->currentIndex()).arg(c->count());
    if (c->isEditable() || c->currentText().isEmpty()) return {};
    QStyleOptionComboBox opt;
    opt.initFrom(c);
    opt.editable = false;
    opt.frame = c->hasFrame();
    opt.currentText = c->currentText();
    const QRect field = c->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, c);
    int need = QFontMetrics(c->font()).horizontalAdvance(c->currentText());
    if (!c->itemIcon(c->currentIndex()).isNull()) need += c->iconSize().width() + 4;
    if (field.width() + 1 < need)
        return QStringLiteral("\"%1\" needs %2 px, has %3").arg(c->currentText()).arg(need).arg(field.width());
    return {};
}

inline QStringList tabsCut(const QTabBar* bar) {
    QStringList cut;
    const QFontMetrics fm(bar->font());
    const int frame = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
    for (int i = 0; i < bar->count(); ++i) {
        if (!bar->isTabVisible(i)) continue;
        const QRect r = bar->tabRect(i);
        const QString text = plainOf(bar->tabText(i));
        const int need = fm.horizontalAdvance(text) + frame;
        if (!bar->rect().contains(r)) cut << QStringLiteral("tab \"%1\" lies off the bar").arg(text);
        else if (r.width() + 1 < need) cut << QStringLiteral("tab \"%1\" needs %2 px, has %3").arg(text).arg(need).arg(r.width());
    }
    return cut;
}

inline QStringList headerCut(const QHeaderView* h) {
    QStringList cut;
    if (!h->model() || h->orientation() != Qt::Horizontal) return cut;
    QFont font = h->font();
    const auto* table = qobject_cast<const QAbstractItemView*>(h->parentWidget());
    font.setBold(h->highlightSections() && table && table->selectionModel() &&
                 table->selectionModel()->hasSelection());  // a highlighted section's title is drawn bold
    const QFontMetrics fm(font);
    const int margins = 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h);
    for (int i = 0; i < h->count(); ++i) {
        if (h->isSectionHidden(i)) continue;
        const int left = h->sectionViewportPosition(i);
        if (left < 0 || left >= h->viewport()->width()) continue;  // scrolled out of sight, not cut
        const QString text = h->model()->headerData(i, Qt::Horizontal, Qt::DisplayRole).toString();
        const int need = widestLine(fm, text) + margins;
        // A column cut by the viewport's edge is cut in the room even where a scroll bar reaches it:
        // nobody scrolls a table sideways during a talk.
        const int room = qMin(h->sectionSize(i), h->viewport()->width() - left);
        // A centred title is drawn in the middle of its whole section, which may run past the view.
        const int right = (h->defaultAlignment() & Qt::AlignHCenter) ? left + (h->sectionSize(i) + need) / 2 : left + need;
        if (room + 1 < need) cut << QStringLiteral("column \"%1\" needs %2 px, has %3").arg(text).arg(need).arg(room);
        else if (right > h->viewport()->width() + 1)
            cut << QStringLiteral("column \"%1\" is drawn past the table's edge (%2 > %3 px)").arg(text).arg(right).arg(h->viewport()->width());
    }
    return cut;
}

inline QStringList chartCut(const QChartView* view) {
    QStringList cut;
    if (!view->scene()) return cut;
    QStringList drawn;  // every visible text, as plain text
    for (const QGraphicsItem* item : view->scene()->items()) {
        if (!item->isVisible()) continue;
        QString text;
        if (auto* t = dynamic_cast<const QGraphicsTextItem*>(item)) text = t->toPlainText();
        else if (auto* s = dynamic_cast<const QGraphicsSimpleTextItem*>(item)) text = s->text();
        drawn << text;
        // Qt Charts cuts a label that has no room to "..." (three full stops).
        if (text.contains(QChar(0x2026)) || text.contains(QLatin1String("..."))) cut << QStringLiteral("chart text \"%1\" elided").arg(text);
    }
    // Qt Charts leaves out a category's label where labels would overlap.
    if (view->chart())
        for (QAbstractAxis* axis : view->chart()->axes())
            if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis); categories && categories->labelsVisible())
                for (const QString& c : categories->categories()) {
                    QTextDocument doc;
                    doc.setHtml(c);
                    if (!drawn.contains(doc.toPlainText())) cut << QStringLiteral("category \"%1\" has no label").arg(doc.toPlainText());
                }
    return cut;
}

inline bool inLayout(const QLayout* layout, const QWidget* w) {
    for (int i = 0; i < layout->count(); ++i) {
        QLayoutItem* item = layout->itemAt(i);
        if (item->widget() == w) return true;
        if (item->layout() && inLayout(item->layout(), w)) return true;
    }
    return false;
}

// Visible widgets one layout places, overlapping one another by more than a pixel or two.
inline QStringList overlaps(const QWidget* parent) {
    QStringList found;
    if (!parent->layout() || qobject_cast<const QStackedLayout*>(parent->layout())) return found;
    QList<const QWidget*> placed;
    for (const QWidget* c : parent->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (!c->isWindow() && c->isVisible() && inLayout(parent->layout(), c)) placed << c;
    for (int i = 0; i < placed.size(); ++i)
        for (int j = i + 1; j < placed.size(); ++j) {
            const QRect both = placed[i]->geometry() & placed[j]->geometry();
            if (both.width() > 2 && both.height() > 2)
                found << QStringLiteral("%1 and %2 overlap by %3x%4").arg(name(placed[i]), name(placed[j])).arg(both.width()).arg(both.height());
        }
    return found;
}

// A widget laid out smaller than the minimum it asks for: its layout ran out of room (a chart then
// cuts its ticks to "...", a table hides its rows).
inline QString squeezed(const QWidget* w) {
    const QSize least = w->minimumSize();
    if (w->width() + 1 >= least.width() && w->height() + 1 >= least.height()) return {};
    return QStringLiteral("laid out at %1x%2, under its minimum %3x%4").arg(w->width()).arg(w->height())
        .arg(least.width()).arg(least.height());
}

// The status bar's message, drawn by the bar itself beside its permanent widgets.
inline QString statusCut(const QStatusBar* bar) {
    const QString message = bar->currentMessage();
    if (message.isEmpty()) return {};
    int room = bar->width() - 12;  // the bar's own margins
    for (const QWidget* w : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (w->isVisible() && !w->isWindow() && w->x() > bar->width() / 3) room = qMin(room, w->x() - 6);
    const int need = QFontMetrics(bar->font()).horizontalAdvance(message);
    if (need > room) return QStringLiteral("message \"%1\" needs %2 px, has %3").arg(message.left(80)).arg(need).arg(room);
    return {};
}

// A list whose entries run off its right edge (read only by scrolling sideways).
inline QString listCut(const QListView* list) {
    if (!list->horizontalScrollBar()->isVisible() || list->viewMode() != QListView::ListMode) return {};
    return QStringLiteral("entries run past its right edge (a sideways scroll bar)");
}

// A table whose columns run past its right edge: its last columns are read only by scrolling.
inline QString tableCut(const QTableView* table) {
    if (!table->horizontalScrollBar()->isVisible()) return {};
    const QHeaderView* h = table->horizontalHeader();
    QStringList widths;
    for (int i = 0; i < h->count(); ++i)
        if (!h->isSectionHidden(i)) widths << QString::number(h->sectionSize(i));
    return QStringLiteral("columns of %1 px run past its %2 px (a sideways scroll bar)")
        .arg(widths.join(QLatin1Char('+'))).arg(table->viewport()->width());
}

/// Every text cut and every overlap in `root`'s visible widgets, one line each.
inline QStringList problems(const QWidget* root) {
    QStringList found;
    auto add = [&](const QWidget* w, const QString& what) { if (!what.isEmpty()) found << name(w) + QStringLiteral(": ") + what; };
    QList<const QWidget*> all{root};
    for (const QWidget* w : root->findChildren<QWidget*>()) all << w;
    for (const QWidget* w : all) {
        if (!onScreen(w)) continue;
        if (auto* l = qobject_cast<const QLabel*>(w)) add(w, labelCut(l));
        else if (auto* b = qobject_cast<const QAbstractButton*>(w)) add(w, buttonCut(b));
        else if (auto* c = qobject_cast<const QComboBox*>(w)) add(w, comboCut(c));
        else if (auto* t = qobject_cast<const QTabBar*>(w)) for (const QString& s : tabsCut(t)) add(w, s);
        else if (auto* h = qobject_cast<const QHeaderView*>(w)) for (const QString& s : headerCut(h)) add(w, s);
        else if (auto* v = qobject_cast<const QChartView*>(w)) for (const QString& s : chartCut(v)) add(w, s);
        else if (auto* bar = qobject_cast<const QStatusBar*>(w)) add(w, statusCut(bar));
        else if (auto* list = qobject_cast<const QListView*>(w)) add(w, listCut(list));
        else if (auto* table = qobject_cast<const QTableView*>(w)) add(w, tableCut(table));
        for (const QString& s : overlaps(w)) add(w, s);
        if (w != root) add(w, squeezed(w));
    }
    return found;
}

}  // namespace screen_check
