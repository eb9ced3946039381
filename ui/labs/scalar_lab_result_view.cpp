#include "ui/labs/scalar_lab_result_view.h"

#include <QGridLayout>
#include <QLabel>

#include "ui/number_format.h"

namespace saccade::ui {

namespace {

struct Row {
    ScalarLabResultView::Field field;
    const char* name;
    const char* hint;
};

// The order of the table; the hints (tooltips) say how each number is defined.
const Row kRows[] = {
    {ScalarLabResultView::Field::SoftContext, "Soft context", "\u03a3 p_i v_i"},
    {ScalarLabResultView::Field::ExpectedHardContext, "Expected hard context", "E[v_hard], exact"},
    {ScalarLabResultView::Field::FSoft, "f(soft)", "f of the soft context"},
    {ScalarLabResultView::Field::ExpectedFHard, "E[f(hard)]", "\u03a3 p_i f(v_i), exact"},
    {ScalarLabResultView::Field::Gap, "Gap", "E[f(hard)] \u2212 f(soft)"},
    {ScalarLabResultView::Field::Argmax, "Argmax choice", "most probable value"},
    {ScalarLabResultView::Field::FArgmax, "f(argmax)", "f of the argmax value"},
    {ScalarLabResultView::Field::DrawU, "Draw: u", "and its cumulative interval"},
    {ScalarLabResultView::Field::DrawSelection, "Draw: selected", "index (0-based, as in saccade-cli and JSON) and value"},
    {ScalarLabResultView::Field::DrawF, "Draw: f", "f of the drawn value"},
    {ScalarLabResultView::Field::MonteCarlo, "Monte-Carlo E[f(hard)]", "mean \u00b1 stderr (n)"},
};

const QString kDash = QStringLiteral("\u2014");

}  // namespace

ScalarLabResultView::ScalarLabResultView(QWidget* parent) : QGroupBox(tr("Results"), parent) {
    auto* grid = new QGridLayout(this);
    grid->setHorizontalSpacing(16);
    int row = 0;
    for (const Row& spec : kRows) {
        auto* name = new QLabel(tr(spec.name), this);
        QFont bold = name->font();
        bold.setBold(true);
        name->setFont(bold);
        name->setToolTip(tr(spec.hint));
        auto* value = new QLabel(kDash, this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setToolTip(tr(spec.hint));
        value->setObjectName(QStringLiteral("value%1").arg(static_cast<int>(spec.field)));
        QFont valueFont = value->font();
        if (valueFont.pointSizeF() > 0) valueFont.setPointSizeF(valueFont.pointSizeF() * 1.1);
        value->setFont(valueFont);
        grid->addWidget(name, row, 0);
        grid->addWidget(value, row, 1);
        m_values[static_cast<size_t>(spec.field)] = value;
        ++row;
    }
    grid->setColumnStretch(1, 1);
}

void ScalarLabResultView::setResult(const ScalarLabResult& r, bool monteCarloPending) {
    setEnabled(true);
    set(Field::SoftContext, formatNumber(r.softContext));
    set(Field::ExpectedHardContext, formatNumber(r.expectedHardContext));
    set(Field::FSoft, formatNumber(r.fSoft));
    set(Field::ExpectedFHard,
        tr("%1   (std %2)").arg(formatNumber(r.expectedFHard), formatNumber(r.stdFHard, 4)));
    set(Field::Gap, formatNumber(r.expectedFHard - r.fSoft));

    const auto argmaxP = r.outcomes.empty() ? 0.0 : r.outcomes[r.argmaxIndex].prob;
    set(Field::Argmax, tr("%1   (index %2, p = %3)")
                           .arg(formatNumber(r.argmaxValue))
                           .arg(r.argmaxIndex)
                           .arg(formatNumber(argmaxP)));
    set(Field::FArgmax, formatNumber(r.fArgmax));

    // The cumulative interval [c_(i-1), c_i) that holds u, for the reader to check the draw.
    double lower = 0;
    for (int i = 0; i < r.draw.index && i < static_cast<int>(r.outcomes.size()); ++i)
        lower += r.outcomes[i].prob;
    const double upper = r.draw.index < static_cast<int>(r.outcomes.size())
                             ? lower + r.outcomes[r.draw.index].prob
                             : lower;
    set(Field::DrawU, tr("%1   in [%2, %3)")
                          .arg(formatNumber(r.draw.u), formatNumber(lower), formatNumber(upper)));
    set(Field::DrawSelection,
        tr("index %1, value %2").arg(r.draw.index).arg(formatNumber(r.draw.value)));
    set(Field::DrawF, formatNumber(r.draw.f));

    if (monteCarloPending) {
        set(Field::MonteCarlo, tr("computing\u2026"));
    } else if (r.mc && r.mc->n > 0) {
        set(Field::MonteCarlo, tr("%1   (n = %2)")
                                   .arg(formatEstimate(r.mc->meanFHard, r.mc->stderrFHard), formatCount(r.mc->n)));
    } else {
        set(Field::MonteCarlo, tr("off (0 samples)"));
    }
}

void ScalarLabResultView::clear() {
    for (QLabel* value : m_values) value->setText(kDash);
    setEnabled(false);
}

QString ScalarLabResultView::text(Field field) const { return label(field)->text(); }

void ScalarLabResultView::set(Field field, const QString& text) { label(field)->setText(text); }

}  // namespace saccade::ui
