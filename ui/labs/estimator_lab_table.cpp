#include "ui/labs/estimator_lab_table.h"

#include <QHeaderView>
#include <algorithm>
#include <cmath>

#include "ui/number_format.h"

namespace saccade::ui {

namespace {

struct ColumnSpec {
    const char* title;
    const char* hint;
};
const ColumnSpec kTableColumns[] = {
    {"Estimator",
     "REINFORCE variants share their draws; every temperature shares its Gumbel noise"},
    {"mean", "mean of the N one-sample estimates of dE[r]/d logit"},
    {"\u00b1 stderr", "standard error of the mean: sqrt(variance / N)"},
    {"bias", "mean \u2212 exact gradient"},
    {"|z|", "|bias| / stderr: above 4 the bias is not noise"},
    {"variance", "variance of one sample's estimate of this logit (Monte-Carlo)"},
    {"closed\nform", "the same variance in closed form (score-function estimators only)"},
    {"\u03a3\nvariance", "variance summed over the logits"},
    {"\u03a3 closed\nform", "closed-form variance summed over the logits"},
    {"ratio vs\nREINFORCE", "REINFORCE's summed variance / this one's (> 1: less variance)"},
};

}  // namespace

int estimatorMeanDecimals(const EstimatorLabResult& r, int logit) {
    QVector<double> errors;
    for (const auto& s : r.estimators) errors << s.standardError[static_cast<size_t>(logit)];
    return std::max(4, decimalsShowing(errors, 2));
}

EstimatorLabTable::EstimatorLabTable(QWidget* parent) : QTableWidget(parent) {
    setObjectName(QStringLiteral("estimatorTable"));
    setColumnCount(ColumnCount);
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QTableWidgetItem(tr(kTableColumns[c].title));
        header->setToolTip(tr(kTableColumns[c].hint));
        setHorizontalHeaderItem(c, header);
    }
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(Name, QHeaderView::ResizeToContents);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setAlternatingRowColors(true);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void EstimatorLabTable::setResult(const EstimatorLabResult& r, int logit) {
    const auto j = static_cast<size_t>(logit);
    setRowCount(static_cast<int>(r.estimators.size()) + 1);
    auto set = [this](int row, int column, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(column == Name ? Qt::AlignLeft | Qt::AlignVCenter
                                              : Qt::AlignRight | Qt::AlignVCenter);
        setItem(row, column, item);
    };
    // Uniform decimals per column: the mean, its error and the bias to the precision of the
    // smallest error (two significant digits, at least four decimals); the variances to two
    // significant digits of their smallest value; |z| to one decimal, the ratio to two.
    QVector<double> variances, totals;
    for (const auto& s : r.estimators) {
        variances << s.variance[j];
        if (!s.closedFormVariance.empty()) variances << s.closedFormVariance[j];
        totals << s.totalVariance;
        if (!s.closedFormVariance.empty()) totals << s.closedFormTotal;
    }
    const int meanDecimals = estimatorMeanDecimals(r, logit);
    const int varianceDecimals = decimalsShowing(variances, 2, 5);
    const int totalDecimals = decimalsShowing(totals, 2, 5);
    for (int c = 0; c < ColumnCount; ++c) set(0, c, QString());
    set(0, Name, tr("exact"));
    set(0, Mean, formatFixed(r.exact[j], meanDecimals));
    for (int e = 0; e < static_cast<int>(r.estimators.size()); ++e) {
        const auto& s = r.estimators[static_cast<size_t>(e)];
        const int row = e + 1;
        set(row, Name, QString::fromStdString(s.name));
        set(row, Mean, formatFixed(s.mean[j], meanDecimals));
        set(row, StdErr, formatFixed(s.standardError[j], meanDecimals));
        set(row, Bias, formatFixed(s.bias[j], meanDecimals));
        set(row, Z, formatFixed(s.standardError[j] > 0 ? std::abs(s.bias[j]) / s.standardError[j] : NAN, 1));
        set(row, Variance, formatFixed(s.variance[j], varianceDecimals));
        set(row, ClosedForm,
            s.closedFormVariance.empty() ? tr("\u2014") : formatFixed(s.closedFormVariance[j], varianceDecimals));
        set(row, TotalVariance, formatFixed(s.totalVariance, totalDecimals));
        set(row, TotalClosedForm,
            s.closedFormVariance.empty() ? tr("\u2014") : formatFixed(s.closedFormTotal, totalDecimals));
        set(row, Ratio, formatFixed(s.varianceRatio, 2) + QStringLiteral("\u00d7"));
        // A bias that the noise cannot explain stands out.
        if (s.standardError[j] > 0 && std::abs(s.bias[j]) > 4 * s.standardError[j])
            item(row, Bias)->setForeground(QColor(0xc6, 0x28, 0x28));
    }
    // Exactly as tall as its rows: the charts above and below take the rest.
    setFixedHeight(horizontalHeader()->sizeHint().height() +
                   rowCount() * verticalHeader()->defaultSectionSize() + 2 * frameWidth());
}

int EstimatorLabTable::rowOf(const QString& name) const {
    for (int row = 0; row < rowCount(); ++row)
        if (item(row, Name) && item(row, Name)->text() == name) return row;
    return -1;
}

QString EstimatorLabTable::cellText(int row, Column column) const {
    const auto* cell = item(row, column);
    return cell ? cell->text() : QString();
}

}  // namespace saccade::ui
