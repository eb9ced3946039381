#pragma once
// The estimator lab's numbers: one row per estimator (and the exact gradient first), the chosen
// logit's mean, standard error, bias, variance and closed-form variance, then the summed figures.

#include <QTableWidget>

#include "analysis/labs/estimator_lab.h"

namespace saccade::ui {

/// The decimals the table prints means, errors and biases of `logit` with (two significant digits
/// of the smallest standard error, at least four); the histogram titles use the same.
int estimatorMeanDecimals(const EstimatorLabResult& result, int logit);

class EstimatorLabTable : public QTableWidget {
    Q_OBJECT

public:
    enum Column {
        Name,
        Mean,
        StdErr,
        Bias,
        Z,
        Variance,
        ClosedForm,
        TotalVariance,
        TotalClosedForm,
        Ratio,
        ColumnCount
    };

    explicit EstimatorLabTable(QWidget* parent = nullptr);

    /// Fills the table for logit `logit` of `result`.
    void setResult(const EstimatorLabResult& result, int logit);
    /// The row of an estimator ("exact" is row 0), or -1.
    int rowOf(const QString& name) const;
    /// The text shown in a cell ("" where none).
    QString cellText(int row, Column column) const;
};

}  // namespace saccade::ui
