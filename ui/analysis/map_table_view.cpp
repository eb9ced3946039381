#include "ui/analysis/map_table_view.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QHeaderView>
#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <optional>

#include "ui/number_format.h"

namespace saccade::ui {

namespace {

QString trMaps(const char* text) { return QCoreApplication::translate("MapTable", text); }

// Nine maps, nine colours that stay apart (the series chart's own palette has five).
const QColor kMapColours[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                              QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                              QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34)};
const QColor kBestBackground(222, 240, 222);

std::optional<double> spearmanOf(const MapFigures& m) {
    return m.sanity ? m.sanity->finalSpearman : std::nullopt;
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!tip.isEmpty()) item->setToolTip(tip);
    return item;
}

QString measured(const std::optional<double>& v, const std::function<QString(double)>& format) {
    return v ? format(*v) : trMaps("not measured");
}

// Bold and tinted: the best measured value of a column (every row that ties with it).
void markBest(QTableWidget& table, int column, const std::vector<std::optional<double>>& values, bool highest) {
    std::optional<double> best;
    int count = 0;
    for (const auto& v : values) {
        if (!v) continue;
        ++count;
        if (!best || (highest ? *v > *best : *v < *best)) best = v;
    }
    if (count < 2) return;  // one figure is the best of nothing
    for (int row = 0; row < int(values.size()); ++row) {
        const auto& v = values[size_t(row)];
        if (!v || std::abs(*v - *best) > 1e-12) continue;
        QTableWidgetItem* item = table.item(row, column);
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
        item->setBackground(kBestBackground);
        item->setToolTip(trMaps("The best of this column"));
    }
}

}  // namespace

void setMapTableHeaders(QTableWidget& table) {
    table.setColumnCount(kMapColumns);
    table.setHorizontalHeaderLabels({trMaps("map"), trMaps("mass in box"), trMaps("pointing"),
                                     trMaps("deletion AUC\n(lower better)"), trMaps("insertion AUC\n(higher better)"),
                                     trMaps("sanity:\nSpearman"), trMaps("sanity:\nflagged")});
    const QString tips[] = {
        trMaps("The map: the model's attention, its rollout, or an attribution method"),
        trMaps("Mean share of the map inside the ground-truth box"),
        trMaps("Pointing game: the share of images whose map's top cell lies on the object"),
        trMaps("Area under the target's probability as the map's cells are deleted, most important first: "
               "lower is better"),
        trMaps("Area under the target's probability as the map's cells are restored on a blank image, most "
               "important first: higher is better"),
        trMaps("Spearman rank correlation of the map with the map of the model with every layer randomised: "
               "lower means the map depends more on what the model learnt"),
        trMaps("Flagged: the map barely changes when the model's weights are randomised, so it does not depend "
               "on the model")};
    for (int c = 0; c < kMapColumns; ++c) table.horizontalHeaderItem(c)->setToolTip(tips[c]);
}

void fillMapTable(QTableWidget& table, const MapComparisonReport& r) {
    table.setRowCount(int(r.maps.size()));
    std::vector<std::optional<double>> mass, pointing, deletion, insertion, spearman;
    const auto percent = [](double v) { return formatPercent(v, 1); };
    const auto fixed3 = [](double v) { return formatFixed(v, 3); };
    for (int row = 0; row < int(r.maps.size()); ++row) {
        const MapFigures& m = r.maps[size_t(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(m.method));
        name->setData(Qt::DecorationRole, kMapColours[size_t(row) % std::size(kMapColours)]);  // the curves' key
        name->setToolTip(QCoreApplication::translate("MapTable", "%1 images, %2 with a box").arg(m.images).arg(m.boxed));
        table.setItem(row, kMapName, name);
        table.setItem(row, kMapMass, cell(measured(m.massInBox, percent)));
        table.setItem(row, kMapPointing, cell(measured(m.pointing, percent)));
        // The areas are measured on every image; with no image counted they are not.
        const auto area = [&m](double v) { return m.images > 0 ? std::optional<double>(v) : std::nullopt; };
        table.setItem(row, kMapDeletion, cell(measured(area(m.deletionAuc), fixed3)));
        table.setItem(row, kMapInsertion, cell(measured(area(m.insertionAuc), fixed3)));
        const auto rho = spearmanOf(m);
        table.setItem(row, kMapSpearman, cell(measured(rho, [](double v) { return formatFixed(v, 2); })));
        table.setItem(row, kMapFlagged, cell(rho ? (m.sanity->flagged ? trMaps("yes") : trMaps("no")) : trMaps("not measured")));
        mass.push_back(m.massInBox);
        pointing.push_back(m.pointing);
        deletion.push_back(area(m.deletionAuc));
        insertion.push_back(area(m.insertionAuc));
        spearman.push_back(rho);
    }
    markBest(table, kMapMass, mass, true);
    markBest(table, kMapPointing, pointing, true);
    markBest(table, kMapDeletion, deletion, false);
    markBest(table, kMapInsertion, insertion, true);
    markBest(table, kMapSpearman, spearman, false);
    table.resizeColumnsToContents();
}

QVector<SeriesChart::Series> mapCurves(const MapComparisonReport& r, bool insertion) {
    QVector<SeriesChart::Series> curves;
    for (size_t m = 0; m < r.maps.size(); ++m) {
        SeriesChart::Series s;
        s.name = QString::fromStdString(r.maps[m].method);
        s.colour = kMapColours[m % std::size(kMapColours)];
        s.legend = false;  // the table's swatches are the key: a legend of nine names would be cut short
        const auto& ys = insertion ? r.maps[m].insertion : r.maps[m].deletion;
        for (size_t k = 0; k < ys.size() && k < r.fractions.size(); ++k) s.points << QPointF(r.fractions[k], ys[k]);
        curves << s;
    }
    return curves;
}

QString mapTableReference(const MapComparisonReport& r) {
    QString text = r.uniformMass ? QCoreApplication::translate("MapTable", "A uniform map puts <b>%1</b> in the box (reference). ")
                                       .arg(formatPercent(*r.uniformMass, 1))
                                 : trMaps("No image has a box: mass and pointing are not measured. ");
    text += trMaps("Bold: the best of its column. ");
    if (r.sanityNote.empty())
        text += QCoreApplication::translate("MapTable",
                                            "Sanity check on %1 images, every layer randomised (seed %2): flagged "
                                            "above a Spearman of %3.")
                    .arg(r.sanityImages).arg(r.seed).arg(formatFixed(r.sanityThreshold, 2));
    else
        text += QCoreApplication::translate("MapTable", "Sanity check not measured (%1).")
                    .arg(QString::fromStdString(r.sanityNote).toHtmlEscaped());
    return text;
}

}  // namespace saccade::ui
