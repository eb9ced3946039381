#pragma once
// The report as PDF through Qt (QTextDocument on a QPdfWriter): the same HTML, its inline SVG
// figures rendered with QSvgRenderer and its PNG data URLs decoded, as images of the document.

#include <QString>

namespace saccade::ui {

/// Writes `html` (a report of buildHtmlReport) as an A4 PDF to `path`, atomically; an empty
/// string on success, else why not.
QString writeReportPdf(const QString& html, const QString& path);

}  // namespace saccade::ui
