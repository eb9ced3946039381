#pragma once
// The distribution of f(hard) against f(soft): exact stems, Monte-Carlo frequencies and
// marker lines for f(soft), E[f(hard)] and f(argmax). The only Qt Charts user of the scalar lab.

#include <QChartView>
#include <QColor>
#include <QList>
#include <QStringList>

#include "analysis/labs/scalar_lab.h"

class QChart;
class QLineSeries;
class QScatterSeries;
class QValueAxis;
class QXYSeries;

namespace saccade::ui {

class ScalarLabChart : public QChartView {
    Q_OBJECT

public:
    enum class Marker { FSoft, ExpectedFHard, FArgmax };

    explicit ScalarLabChart(QWidget* parent = nullptr);

    /// Draws `result`: one stem per distinct f value (outcomes with equal f merge).
    void setResult(const ScalarLabResult& result);
    /// Removes every point and marker, leaving empty axes and `message` as the title.
    void clear(const QString& message = {});

    /// Points of the exact distribution (distinct f values).
    int exactPointCount() const;
    /// Points of the Monte-Carlo frequencies (0 when the result had no Monte-Carlo).
    int monteCarloPointCount() const;
    /// x of a marker line, or NaN when the chart is empty.
    double markerX(Marker marker) const;
    /// The axis ranges currently shown.
    double xMin() const;
    double xMax() const;
    double yMax() const;
    /// The Monte-Carlo legend swatch's fill (the squares' orange).
    QColor monteCarloSwatchColour() const;
    /// The stem labels, "f=4, p=0.5", in f order.
    QStringList stemLabels() const;

protected:
    /// The stems' "f=…, p=…" labels, on a light box above the dot and the Monte-Carlo square,
    /// so the marker lines that cross them and the squares never hide them.
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    struct StemLabel {
        QPointF at;  ///< chart value of the label's anchor: the stem's f and its tallest point
        QString text;
    };
    QList<StemLabel> m_stemLabels;

    void paintMonteCarloSwatch();
    /// Every series, in legend order.
    QList<QXYSeries*> allSeries() const;
    void setMarker(QLineSeries* series, double x, double yTop, const QString& name);

    QChart* m_chart = nullptr;
    QValueAxis* m_axisX = nullptr;
    QValueAxis* m_axisY = nullptr;
    QLineSeries* m_stems = nullptr;  // exact stems as separate segments
    QScatterSeries* m_exact = nullptr;
    QScatterSeries* m_monteCarlo = nullptr;
    QLineSeries* m_fSoft = nullptr;
    QLineSeries* m_expectedFHard = nullptr;
    QLineSeries* m_fArgmax = nullptr;
};

}  // namespace saccade::ui
