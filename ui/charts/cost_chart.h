#pragma once
// What each rule costs per image, one horizontal bar per variant and rule, stacked by stage of
// the forward pass: milliseconds measured, or MFLOP counted from the layer shapes.

#include <QChartView>
#include <QString>
#include <QStringList>

#include "models/cost_profile.h"

namespace saccade::ui {

class CostChart : public QChartView {
    Q_OBJECT

public:
    explicit CostChart(QWidget* parent = nullptr);

    /// `flops`: stack MFLOP per image, else milliseconds per image.
    void setReport(const CostReport& report, bool flops);
    void clear();
    /// The bars, top first: "variant / rule".
    QStringList categories() const { return m_categories; }
    /// One row per bar, one column per stage, in the unit shown.
    QString csv() const;

private:
    CostReport m_report;
    bool m_flops = false;
    QStringList m_categories, m_stages;
};

}  // namespace saccade::ui
