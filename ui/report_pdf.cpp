#include "ui/report_pdf.h"

#include <QBuffer>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QUrl>

#include "ui/view_export.h"

namespace saccade::ui {

QString writeReportPdf(const QString& source, const QString& path) {
    QTextDocument document;
    QString html = source;
    int figure = 0;
    // Inline SVG: drawn at twice its size for print, then an image of the document.
    static const QRegularExpression svgElement(QStringLiteral("<svg[^>]*>.*?</svg>"),
                                               QRegularExpression::DotMatchesEverythingOption);
    for (auto match = svgElement.match(html); match.hasMatch(); match = svgElement.match(html)) {
        QSvgRenderer renderer(match.captured(0).toUtf8());
        if (!renderer.isValid()) return QObject::tr("a figure of the report is not valid SVG");
        const QSize size = renderer.defaultSize();
        QImage image(size * 2, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        renderer.render(&painter);
        painter.end();
        const QString name = QStringLiteral("figure-%1.png").arg(++figure);
        document.addResource(QTextDocument::ImageResource, QUrl(name), image);
        html.replace(match.capturedStart(0), match.capturedLength(0),
                     QStringLiteral("<img src=\"%1\" width=\"%2\">").arg(name).arg(size.width()));
    }
    // PNG data URLs: decoded into resources of the same names.
    static const QRegularExpression dataUrl(QStringLiteral("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\""));
    for (auto match = dataUrl.match(html); match.hasMatch(); match = dataUrl.match(html)) {
        const QImage image = QImage::fromData(QByteArray::fromBase64(match.captured(1).toLatin1()), "PNG");
        if (image.isNull()) return QObject::tr("a picture of the report is not a valid PNG");
        const QString name = QStringLiteral("figure-%1.png").arg(++figure);
        document.addResource(QTextDocument::ImageResource, QUrl(name), image);
        html.replace(match.capturedStart(0), match.capturedLength(0),
                     QStringLiteral("src=\"%1\" width=\"%2\"").arg(name).arg(std::min(image.width(), 640)));
    }
    document.setHtml(html);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setResolution(150);
        writer.setTitle(document.metaInformation(QTextDocument::DocumentTitle));
        writer.setCreator(QStringLiteral("Saccade"));
        document.print(&writer);
    }
    if (bytes.isEmpty()) return QObject::tr("Qt wrote no PDF");
    return writeFileAtomically(path, bytes);
}

}  // namespace saccade::ui
