#include "ui/view_export.h"
#include "ui/file_dialogs.h"

#include <QBuffer>
#include <QFontMetrics>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSvgGenerator>
#include <QTableWidget>
#include <QTextDocument>
#include <QToolButton>

#include <algorithm>

#include "ui/charts/chart_figure.h"
#include "common/atomic_file.h"

namespace saccade::ui {

namespace {

QString csvField(QString text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    return QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

QString suffixOf(const QString& path) { return QFileInfo(path).suffix().toLower(); }

QString unknownSuffix(const QString& path, const QString& accepted) {
    return QObject::tr("cannot tell the format of %1: name it .%2").arg(path, accepted);
}

QString savePng(const QImage& image, const QString& path) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, "PNG")) return QObject::tr("could not encode the PNG");
    return writeFileAtomically(path, bytes);
}

QString tableHtml(const QTableWidget& table) {
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'><tr>");
    for (int c = 0; c < table.columnCount(); ++c) {
        const auto* h = table.horizontalHeaderItem(c);
        html += QStringLiteral("<th>%1</th>").arg((h ? h->text() : QString::number(c + 1)).toHtmlEscaped());
    }
    html += QStringLiteral("</tr>");
    for (int r = 0; r < table.rowCount(); ++r) {
        html += QStringLiteral("<tr>");
        for (int c = 0; c < table.columnCount(); ++c) {
            const auto* item = table.item(r, c);
            html += QStringLiteral("<td>%1</td>").arg(item ? item->text().toHtmlEscaped() : QString());
        }
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QFont figureFont(double scale, bool bold) {
    QFont font;
    font.setPixelSize(int(13 * scale));
    font.setBold(bold);
    return font;
}

// The title (bold), the view at figure size, the caption (wrapped) below, on white.
QString exportFigure(QWidget& view, const FigureText& text, const QString& path, bool svg) {
    const QRect before = view.geometry();
    const QSize size(std::max(before.width(), kFigureWidth), std::max(before.height(), kFigureHeight));
    // A chart is laid out anew at the figure's size (its widget keeps its own); another view is
    // resized for the drawing and given back.
    const bool isChart = isChartView(view);
    if (!isChart) view.resize(size);
    constexpr int pad = 10;
    const QFont titleFont = figureFont(1.25, true), captionFont = figureFont(1.0, false);
    const int textWidth = size.width() - 2 * pad;
    auto height = [&](const QFont& font, const QString& t) {
        return t.isEmpty() ? 0 : QFontMetrics(font).boundingRect(QRect(0, 0, textWidth, 10000), Qt::TextWordWrap, t).height() + pad;
    };
    const int titleHeight = height(titleFont, text.title) + pad, captionHeight = height(captionFont, text.caption);
    const QSize figure(size.width(), titleHeight + size.height() + captionHeight + pad);
    auto paint = [&](QPainter& p) {
        p.fillRect(QRect(QPoint(0, 0), figure), Qt::white);
        p.setPen(Qt::black);
        p.setFont(titleFont);
        p.drawText(QRect(pad, pad, textWidth, titleHeight), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text.title);
        if (!drawChartAt(view, p, QRectF(0, titleHeight, size.width(), size.height())))
            view.render(&p, QPoint(0, titleHeight));
        p.setPen(QColor(60, 60, 60));
        p.setFont(captionFont);
        p.drawText(QRect(pad, titleHeight + size.height() + pad / 2, textWidth, captionHeight),
                   Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, text.caption);
    };
    QString error;
    if (svg) {
        error = saveSvg(figure, text.title, paint, path);
    } else {
        QImage image(figure, QImage::Format_ARGB32);
        QPainter p(&image);
        p.setRenderHint(QPainter::Antialiasing);
        paint(p);
        p.end();
        error = savePng(image, path);
    }
    if (!isChart) view.setGeometry(before);
    return error;
}

}  // namespace

QString plainText(const QString& richText) {
    QTextDocument document;
    document.setHtml(richText);
    return document.toPlainText().trimmed();  // its lines kept: a caption draws them as lines
}

QString writeFileAtomically(const QString& path, const QByteArray& bytes) {
    // core's atomic save: through a symbolic link to its target, never over a device or FIFO.
    auto written = saccade::writeFileAtomic(path.toStdString(), bytes.toStdString());
    return written ? QString() : QString::fromStdString(written.error());
}

QString exportView(QWidget& view, const QString& csv, const QString& path, const QString& json,
                   const FigureText& text) {
    const QString suffix = suffixOf(path);
    if (suffix == QLatin1String("csv")) return writeFileAtomically(path, csv.toUtf8());
    if (suffix == QLatin1String("json") && !json.isEmpty()) return writeFileAtomically(path, json.toUtf8());
    if (!text.title.isEmpty() && (suffix == QLatin1String("png") || suffix == QLatin1String("svg")))
        return exportFigure(view, text, path, suffix == QLatin1String("svg"));
    if (suffix == QLatin1String("png")) return savePng(view.grab().toImage(), path);
    if (suffix == QLatin1String("svg"))
        return saveSvg(view.size(), view.objectName(), [&](QPainter& p) { view.render(&p); }, path);
    return unknownSuffix(path, json.isEmpty() ? QStringLiteral("png, .svg or .csv") : QStringLiteral("png, .svg, .csv or .json"));
}

QString saveSvg(const QSize& size, const QString& title, const std::function<void(QPainter&)>& paint,
                const QString& path) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    {
        QPainter p(&svg);
        paint(p);
    }
    return writeFileAtomically(path, bytes);
}

QString exportJsonFile(const std::string& json, const QString& path) {
    if (suffixOf(path) != QLatin1String("json")) return QObject::tr("name the file %1 with .json").arg(path);
    return writeFileAtomically(path, QByteArray::fromStdString(json));
}

QString tableCsv(const QTableWidget& table) {
    QStringList lines, header;
    for (int c = 0; c < table.columnCount(); ++c) {
        const auto* h = table.horizontalHeaderItem(c);
        // A header broken over two lines on screen is one name in the file.
        header << csvField(h ? h->text().replace(QLatin1Char('\n'), QLatin1Char(' ')) : QString::number(c + 1));
    }
    lines << header.join(QLatin1Char(','));
    for (int r = 0; r < table.rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < table.columnCount(); ++c) {
            const auto* item = table.item(r, c);
            row << csvField(item ? item->text() : QString());
        }
        lines << row.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString exportTable(const QTableWidget& table, const QString& path) {
    const QString suffix = suffixOf(path);
    if (suffix == QLatin1String("csv")) return writeFileAtomically(path, tableCsv(table).toUtf8());
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg"))
        return unknownSuffix(path, QStringLiteral("csv, .png or .svg"));
    QTextDocument doc;
    doc.setDefaultFont(table.font());
    doc.setHtml(tableHtml(table));
    doc.setTextWidth(doc.idealWidth());
    const QSize size = doc.size().toSize() + QSize(2, 2);
    auto paint = [&](QPainter& p) {
        p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
        doc.drawContents(&p);
    };
    if (suffix == QLatin1String("svg")) return saveSvg(size, table.objectName(), paint, path);
    QImage image(size, QImage::Format_ARGB32);
    {
        QPainter p(&image);
        paint(p);
    }
    return savePng(image, path);
}

QToolButton* makeExportButton(QWidget* parent, const QList<ExportItem>& items) {
    auto* button = new QToolButton(parent);
    button->setText(QObject::tr("Export"));
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    for (const auto& item : items) {
        menu->addAction(item.title + QStringLiteral("…"), parent, [parent, item] {
            const QString path = saveFileDialog(parent, item.title, item.fileName, item.filters);
            if (path.isEmpty()) return;
            const QString error = item.write(path);
            if (!error.isEmpty()) QMessageBox::warning(parent, item.title, error);
        });
    }
    button->setMenu(menu);
    return button;
}

}  // namespace saccade::ui
