#pragma once
// Exports of charts and tables: what a chart shows as PNG or SVG, its data as CSV; a table as
// CSV, or drawn in full (every row, not only the visible ones) as PNG or SVG. The format follows
// the file's suffix. Every file is written atomically; each function returns an empty string on
// success, else a readable error.

#include <QByteArray>
#include <QList>
#include <QString>
#include <QToolButton>  // whole: callers keep the button as a QWidget (Qt 6.8 includes it nowhere else)
#include <functional>
#include <string>

class QPainter;
class QSize;
class QTableWidget;
class QWidget;

namespace saccade::ui {

/// Writes `bytes` to a temporary file renamed over `path`.
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

/// A chart's figure text: a title above it and a caption below (what was measured, on which model
/// and data), as the canvas's view exports carry.
struct FigureText {
    QString title, caption;
};

/// .png or .svg: what `view` shows; .csv: `csv`; .json: `json` when given. Other suffixes are refused.
/// With a title, the image is a figure: the title, the view drawn at least kFigureWidth x
/// kFigureHeight (a chart redraws at that size, axis titles and all), and the caption.
QString exportView(QWidget& view, const QString& csv, const QString& path, const QString& json = {},
                   const FigureText& text = {});
constexpr int kFigureWidth = 800, kFigureHeight = 450;
/// A label's rich text as plain text (a summary becomes a figure's caption).
QString plainText(const QString& richText);

/// Paints `paint` into an SVG of `size` (titled `title`) and writes it to `path`.
QString saveSvg(const QSize& size, const QString& title, const std::function<void(QPainter&)>& paint,
                const QString& path);

/// Writes `json` to `path`, which must end in .json (else the error says to name it so).
QString exportJsonFile(const std::string& json, const QString& path);

/// CSV of a table: the header labels (each on one line), then every row's cell texts (quoted where
/// needed).
QString tableCsv(const QTableWidget& table);

/// .csv: tableCsv; .png or .svg: every row of the table drawn with its header.
QString exportTable(const QTableWidget& table, const QString& path);

/// One entry of an export menu: what it exports, a default file name, the save dialog's
/// filters (e.g. "PNG (*.png);;SVG (*.svg);;CSV (*.csv)") and the function that writes a path.
struct ExportItem {
    QString title, fileName, filters;
    std::function<QString(const QString&)> write;
};

/// A "Export" tool button with one menu entry per item; each asks for a path and writes it,
/// showing an error box when writing fails.
QToolButton* makeExportButton(QWidget* parent, const QList<ExportItem>& items);

}  // namespace saccade::ui
