#include "ui/charts/chart_room.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>

namespace saccade::ui {

namespace {

class TitleKeeper : public QObject {
public:
    TitleKeeper(QChartView* view, int lines) : QObject(view), m_view(view), m_lines(lines) {
        view->installEventFilter(this);
    }

    bool eventFilter(QObject*, QEvent* event) override {
        const auto type = event->type();
        if (type == QEvent::Resize || type == QEvent::FontChange || type == QEvent::Show) apply();
        return false;
    }

private:
    void apply() {
        QChart* chart = m_view->chart();
        if (!chart) return;
        const bool roomy = m_view->height() >= m_lines * m_view->fontMetrics().height();
        if (!roomy && !chart->title().isEmpty()) {
            m_title = chart->title();
            chart->setTitle(QString());
            if (m_view->toolTip().isEmpty()) m_view->setToolTip(m_title);
        } else if (roomy && chart->title().isEmpty() && !m_title.isEmpty()) {
            chart->setTitle(m_title);
            if (m_view->toolTip() == m_title) m_view->setToolTip(QString());
            m_title.clear();
        }
        for (QAbstractAxis* axis : chart->axes()) axis->setTitleVisible(roomy);
    }

    QChartView* m_view;
    int m_lines;
    QString m_title;  ///< the chart's title while it is hidden
};

}  // namespace

void keepTitlesWhereRoomy(QChartView* view, int lines) { new TitleKeeper(view, lines); }

}  // namespace saccade::ui
