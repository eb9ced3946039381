#include "ui/charts/training_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include "ui/charts/axis_ticks.h"
#include <algorithm>
#include <cmath>

namespace saccade::ui {

namespace {

template <class S>
S* addSeries(QChart* chart, const QString& name, const QColor& colour, QValueAxis* x, QValueAxis* y) {
    auto* s = new S;
    s->setName(name);
    s->setColor(colour);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    return s;
}

}  // namespace

TrainingChart::TrainingChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("trainingChart"));
    auto* chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    // On the right, one name per line: along the bottom eight names did not fit and were cut
    // ("eval argm…"); a column gives each its whole width.
    chart->legend()->setAlignment(Qt::AlignRight);
    m_x = new QValueAxis;
    m_x->setTitleText(tr("iteration"));
    m_left = new QValueAxis;
    m_left->setTitleText(tr("loss terms, reward, entropy (nats)"));
    m_right = new QValueAxis;
    m_right->setTitleText(tr("accuracy"));
    setRoundTicks(m_right, 0, 1);
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_left, Qt::AlignLeft);
    chart->addAxis(m_right, Qt::AlignRight);
    m_ce = addSeries<QLineSeries>(chart, tr("cross-entropy"), QColor(30, 100, 200), m_x, m_left);
    m_reward = addSeries<QLineSeries>(chart, tr("reward"), QColor(230, 120, 20), m_x, m_left);
    m_baseline = addSeries<QLineSeries>(chart, tr("baseline"), QColor(150, 80, 180), m_x, m_left);
    m_entropy = addSeries<QLineSeries>(chart, tr("entropy"), QColor(120, 120, 120), m_x, m_left);
    m_trainAcc = addSeries<QLineSeries>(chart, tr("batch acc."), QColor(60, 170, 90), m_x, m_right);
    m_evalSoft = addSeries<QScatterSeries>(chart, tr("eval soft"), QColor(25, 25, 25), m_x, m_right);
    m_evalArgmax = addSeries<QScatterSeries>(chart, tr("eval argmax"), QColor(200, 40, 40), m_x, m_right);
    m_evalSample = addSeries<QScatterSeries>(chart, tr("eval sample"), QColor(140, 95, 25), m_x, m_right);
    for (auto* s : {m_evalSoft, m_evalArgmax, m_evalSample}) s->setMarkerSize(9);
    m_bleu = addSeries<QLineSeries>(chart, tr("eval BLEU-4"), QColor(20, 150, 150), m_x, m_right);
    m_mass = addSeries<QLineSeries>(chart, tr("eval mass on object"), QColor(200, 60, 160), m_x, m_right);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(260);
    clear();
}

void TrainingChart::clear(const FamilyProgressNames& names, bool hard) {
    for (auto* s : {static_cast<QXYSeries*>(m_ce), static_cast<QXYSeries*>(m_reward),
                    static_cast<QXYSeries*>(m_baseline), static_cast<QXYSeries*>(m_entropy),
                    static_cast<QXYSeries*>(m_trainAcc), static_cast<QXYSeries*>(m_evalSoft),
                    static_cast<QXYSeries*>(m_evalArgmax), static_cast<QXYSeries*>(m_evalSample),
                    static_cast<QXYSeries*>(m_bleu), static_cast<QXYSeries*>(m_mass)})
        s->clear();
    auto name = [](QXYSeries* s, const std::string& text) {  // a family without the figure hides it
        s->setName(QString::fromStdString(text));
        s->setVisible(!text.empty());
    };
    m_bleu->setVisible(names.bleuAndMass);
    m_mass->setVisible(names.bleuAndMass);
    m_entropy->setVisible(names.entropy);
    name(m_evalSoft, names.evalSoft);
    name(m_evalArgmax, names.evalArgmax);
    name(m_evalSample, names.evalSample);
    name(m_trainAcc, names.trainAccuracy);
    m_right->setTitleText(QString::fromStdString(names.accuracyAxis));
    m_reward->setVisible(hard || names.reward);
    m_baseline->setVisible(hard || names.reward);
    setRoundTicks(m_x, 0, 10, 6, /*integers=*/true);
    m_leftMin = 0;
    m_leftMax = 1;
    setRoundTicks(m_left, m_leftMin, m_leftMax);
}

void TrainingChart::add(const TrainProgress& p) {
    const double x = double(p.iteration);
    m_ce->append(x, p.crossEntropy);
    m_entropy->append(x, p.entropy);
    m_trainAcc->append(x, p.trainAccuracy);
    double lo = std::min({p.crossEntropy, p.entropy}), hi = std::max({p.crossEntropy, p.entropy});
    if (m_reward->isVisible()) {
        m_reward->append(x, p.reward);
        m_baseline->append(x, p.baseline);
        lo = std::min({lo, p.reward, p.baseline});
        hi = std::max({hi, p.reward, p.baseline});
    }
    if (p.evaluated) {
        m_evalSoft->append(x, p.evalSoft);
        m_evalArgmax->append(x, p.evalArgmax);
        m_evalSample->append(x, p.evalSample);
        if (p.evalBleu4 >= 0) m_bleu->append(x, p.evalBleu4);
        if (p.evalAttention >= 0) m_mass->append(x, p.evalAttention);
    }
    m_leftMin = std::min(m_leftMin, std::floor(lo));
    m_leftMax = std::max(m_leftMax, std::ceil(hi));
    setRoundTicks(m_left, m_leftMin, m_leftMax);
    setRoundTicks(m_x, 0, std::max(10.0, p.total > 0 ? double(p.total) : x), 6, /*integers=*/true);
}

int TrainingChart::lossPointCount() const { return m_ce->count(); }
int TrainingChart::evalPointCount() const { return m_evalArgmax->count(); }

}  // namespace saccade::ui
