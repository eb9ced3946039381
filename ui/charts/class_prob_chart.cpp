#include "ui/charts/class_prob_chart.h"
#include "ui/charts/chart_room.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QFontMetrics>
#include <QRegularExpression>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <numeric>

namespace saccade::ui {

namespace {
const QColor kBarColour(70, 130, 200);
const QColor kTruthColour(40, 170, 80);
}  // namespace

ClassProbChart::ClassProbChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("classProbChart"));
    auto* chart = new QChart;
    chart->legend()->hide();
    // Room on the right for the value label of a bar at 1: the axis itself ends at 1.
    chart->setMargins(QMargins(2, 2, 34, 2));
    chart->setBackgroundRoundness(0);
    m_series = new QHorizontalBarSeries;
    m_series->setBarWidth(0.75);
    m_series->setLabelsVisible(true);
    m_series->setLabelsFormat(QStringLiteral("@value"));
    m_series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    m_set = new QBarSet(tr("p"));
    m_set->setColor(kBarColour);
    m_set->setLabelColor(QColor(40, 40, 40));
    m_series->append(m_set);
    chart->addSeries(m_series);
    m_axisY = new QBarCategoryAxis;
    m_axisX = new QValueAxis;
    m_axisX->setRange(0, 1);  // a probability (or a share of runs)
    m_axisX->setTickCount(3);  // 0, 0.5, 1: in the narrow side panel, 0.25 and 0.75 were elided
    m_axisX->setLabelFormat(QStringLiteral("%.1f"));
    m_axisX->setMinorTickCount(1);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    chart->addAxis(m_axisX, Qt::AlignBottom);
    m_series->attachAxis(m_axisY);
    m_series->attachAxis(m_axisX);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    keepTitlesWhereRoomy(this, 8);
    connect(m_set, &QBarSet::clicked, this, [this](int index) {
        if (index >= 0 && index < m_order.size()) Q_EMIT classClicked(m_order[index]);
    });
}

void ClassProbChart::setAxisTitles(const QString& value, const QString& categories) {
    m_axisX->setTitleText(value);
    m_axisY->setTitleText(categories);
}

void ClassProbChart::setProbabilities(const QVector<double>& probs, const QStringList& names,
                                      int truth, int maxBars, int marked, const QString& markNote) {
    m_shown = {probs, names, truth, maxBars, marked, markNote};
    apply();
}

int ClassProbChart::barsThatFit() const {
    const int lineHeight = QFontMetrics(m_axisY->labelsFont()).height();
    return std::max(3, int((height() - 64) / (1.3 * lineHeight)));
}

bool ClassProbChart::notesOnTheirOwnLine(int bars) const {
    // Qt Charts cuts a two-line category label unless its band is well over two lines tall.
    const int lineHeight = QFontMetrics(m_axisY->labelsFont()).height();
    const qreal plot = chart()->plotArea().height() > 0 ? chart()->plotArea().height() : height() - 64;
    return bars <= 0 || plot / bars >= 3.5 * lineHeight;
}

void ClassProbChart::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    if (m_shown.probs.isEmpty()) return;
    const int bars = std::min(m_shown.maxBars, barsThatFit());
    if (bars != m_appliedBars || notesOnTheirOwnLine(int(m_order.size())) != m_appliedTwoLines) apply();
}

void ClassProbChart::apply() {
    const auto& [probs, names, truth, maxBars, marked, markNote] = m_shown;
    m_appliedBars = std::min(maxBars, barsThatFit());
    QVector<int> order(probs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return probs[a] > probs[b]; });
    order.resize(std::min<int>(m_appliedBars, order.size()));
    // The true class is always shown: one bar more, below the largest, when it is not among them
    // (in place of the smallest where the chart has no room for one more).
    const bool truthListed = truth < 0 || truth >= probs.size() || std::find(order.begin(), order.end(), truth) != order.end();
    if (!truthListed) {
        if (order.size() >= barsThatFit() && order.size() > 1) order.pop_back();
        order.push_back(truth);
    }
    // Horizontal bars run bottom-up: append the smallest first so the largest is on top.
    std::reverse(order.begin(), order.end());
    m_order = order;
    QStringList categories;
    m_set->remove(0, m_set->count());
    m_set->deselectAllBars();
    // Notes go on a second line where each bar has two lines' height (a long class name and the
    // note then both fit a narrow column); in a short chart the marked output is bold and a true
    // class too short to see green has its name in green (the tool tip says so).
    const bool twoLines = notesOnTheirOwnLine(int(order.size()));
    m_appliedTwoLines = twoLines;
    for (int i = 0; i < order.size(); ++i) {
        const int k = order[i];
        // The axis reads its labels as HTML: "<end>" must be escaped to be seen.
        QString name = k < names.size() ? names[k].toHtmlEscaped() : tr("class %1").arg(k);
        const bool noted = k == marked && !markNote.isEmpty();
        // A true class whose bar is too short to see green is named as such.
        const bool trueNoted = k == truth && (probs[k] < 0.05 || !truthListed);
        if (twoLines) {
            if (noted) name += QStringLiteral("<br>(%1)").arg(markNote);
            if (trueNoted) name += tr("<br>(true)");
        } else {
            if (noted) name = QStringLiteral("<b>%1</b>").arg(name);
            if (trueNoted) name = QStringLiteral("<span style=\"color:%1\">%2</span>").arg(kTruthColour.name(), name);
        }
        categories << name;
        m_set->append(std::round(probs[k] * 1000) / 1000);
    }
    // Class names are shown whole ("Pullover", not "Pullover…"); long captions are cut to fit.
    bool shortNames = true;
    for (int k : order) shortNames &= k >= names.size() || names[k].size() <= 16;
    m_axisY->setTruncateLabels(!(m_wholeShortNames && shortNames));
    m_set->setSelectedColor(kTruthColour);
    for (int i = 0; i < order.size(); ++i)
        if (order[i] == truth) m_set->selectBar(i);
    m_axisY->clear();
    m_axisY->append(categories);
}

void ClassProbChart::clear() {
    m_shown = {};
    m_order.clear();
    m_set->remove(0, m_set->count());
    m_axisY->clear();
}

QStringList ClassProbChart::shownCategories() const {
    QStringList top = m_axisY->categories();
    std::reverse(top.begin(), top.end());
    static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
    for (QString& name : top) name.replace(QStringLiteral("<br>"), QStringLiteral(" ")).remove(tag);  // as one line
    return top;
}

QStringList ClassProbChart::shownLabels() const {
    QStringList top = m_axisY->categories();
    std::reverse(top.begin(), top.end());
    return top;
}

QVector<double> ClassProbChart::shownValues() const {
    QVector<double> values;
    for (int i = m_set->count() - 1; i >= 0; --i) values << m_set->at(i);
    return values;
}

}  // namespace saccade::ui
