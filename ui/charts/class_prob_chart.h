#pragma once
// Class probabilities of one trace step as horizontal bars, most probable on top, the
// ground-truth class marked. The only Qt Charts user of the attention page.

#include <QChartView>
#include <QStringList>
#include <QVector>

class QBarCategoryAxis;
class QBarSet;
class QHorizontalBarSeries;
class QValueAxis;

namespace saccade::ui {

class ClassProbChart : public QChartView {
    Q_OBJECT

public:
    explicit ClassProbChart(QWidget* parent = nullptr);

    /// Shows the `maxBars` largest of `probs` (named by `names`; "class i" when missing);
    /// `truth` (or -1) is drawn in green, one bar more when it is not among them.
    /// `marked` (or -1) gets `markNote` in brackets after its name (the comparison panel marks
    /// the deterministic rule's output this way).
    void setProbabilities(const QVector<double>& probs, const QStringList& names, int truth,
                          int maxBars = 10, int marked = -1, const QString& markNote = {});
    void clear();
    /// Axis titles: what a bar's length is ("share of runs") and what the bars are ("output").
    void setAxisTitles(const QString& value, const QString& categories);
    /// Class names of at most 16 characters are shown whole, never "Pullover…" (the side panel's
    /// chart); off, every label may be cut to fit a narrow column (the Runs tab's).
    void setWholeShortNames(bool whole) { m_wholeShortNames = whole; }

    /// The categories shown, top bar first (each as one line of text), and their values (for tests).
    QStringList shownCategories() const;
    /// The same labels as the axis draws them (HTML: a note on its own line, or a bold name).
    QStringList shownLabels() const;
    QVector<double> shownValues() const;
    /// The class of each bar, bottom bar first (the bar set's indices).
    QVector<int> barClasses() const { return m_order; }
    QBarSet* barSet() const { return m_set; }

Q_SIGNALS:
    /// The bar of class `classIndex` was clicked.
    void classClicked(int classIndex);

protected:
    /// A chart made shorter shows fewer bars (and notes on one line) rather than labels cut or left out.
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Shown {
        QVector<double> probs;
        QStringList names;
        int truth = -1, maxBars = 10, marked = -1;
        QString markNote;
    };
    /// Draws `m_shown` with as many bars as the chart's height gives labels room for.
    void apply();
    /// The most bars whose labels fit the chart's height (at least 3), and whether a note fits on
    /// a second line of each.
    int barsThatFit() const;
    bool notesOnTheirOwnLine(int bars) const;

    Shown m_shown;
    int m_appliedBars = -1;
    bool m_appliedTwoLines = false;
    QHorizontalBarSeries* m_series = nullptr;
    QBarSet* m_set = nullptr;
    QBarCategoryAxis* m_axisY = nullptr;
    QValueAxis* m_axisX = nullptr;
    bool m_wholeShortNames = false;
    QVector<int> m_order;
};

}  // namespace saccade::ui
