#include "ui/report_export.h"
#include "ui/file_dialogs.h"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStandardPaths>
#include <cmath>
#include <memory>

#include "ui/analysis_job.h"
#include "models/attention_model.h"
#include "ui/report_pdf.h"
#include "ui/view_export.h"

namespace saccade::ui {

ReportExporter::ReportExporter(QWidget* parent) : QObject(parent), m_parent(parent), m_job(new AnalysisJob(this)) {
    connect(m_job, &AnalysisJob::progress, this, [this](double f) {
        if (m_dialog) m_dialog->setValue(int(std::lround(1000 * f)));
    });
}

bool ReportExporter::isRunning() const { return m_job->isRunning(); }

void ReportExporter::exportReport(const QString& checkpoint, const QString& dataset) {
    if (checkpoint.isEmpty()) {
        QMessageBox::information(m_parent, tr("Export report"), tr("Open a model on the Attention page first."));
        return;
    }
    if (isRunning()) {
        Q_EMIT statusMessage(tr("A report is already being made."));
        return;
    }
    QString path = saveFileDialog(m_parent, tr("Export report"), QFileInfo(checkpoint).completeBaseName() + QStringLiteral("-report.html"),
                                  tr("HTML report (*.html);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    if (!path.endsWith(QStringLiteral(".html"), Qt::CaseInsensitive) && !path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive))
        path += QStringLiteral(".html");
    ReportOptions options;
    options.modelPath = checkpoint.toStdString();
    options.dataset = dataset.toStdString();
    start(options, path);
}

bool ReportExporter::start(const ReportOptions& given, const QString& path) {
    ReportOptions options = given;
    options.generated = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'")).toStdString();
    auto html = std::make_shared<std::string>();
    const bool started = m_job->start(
        [options, html](const Progress& progress) -> QString {
            auto model = loadAttentionModel(options.modelPath, "auto");
            if (!model) return QString::fromStdString(model.error());
            auto built = buildHtmlReport(**model, options, progress);
            if (!built) return QString::fromStdString(built.error());
            *html = std::move(*built);
            return {};
        },
        [this, html, path] {
            if (m_dialog) m_dialog->hide();
            const QString error = path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)
                                      ? writeReportPdf(QString::fromStdString(*html), path)
                                      : writeFileAtomically(path, QByteArray::fromStdString(*html));
            Q_EMIT statusMessage(error.isEmpty() ? tr("Wrote the report %1").arg(path) : tr("Report not written: %1").arg(error));
            Q_EMIT finished(path, error);
        });
    if (!started) return false;
    if (!m_dialog) {
        m_dialog = new QProgressDialog(tr("Measuring the model for the report…"), tr("Cancel"), 0, 1000, m_parent);
        m_dialog->setObjectName(QStringLiteral("reportProgress"));
        m_dialog->setWindowTitle(tr("Export report"));
        m_dialog->setWindowModality(Qt::WindowModal);
        m_dialog->setAutoClose(false);
        m_dialog->setAutoReset(false);
        m_dialog->setMinimumDuration(0);
        connect(m_dialog, &QProgressDialog::canceled, this, [this] {
            m_dialog->hide();
            m_job->cancel();
            Q_EMIT statusMessage(tr("Report cancelled."));
            Q_EMIT finished(QString(), tr("cancelled"));
        });
        connect(m_job, &AnalysisJob::failed, this, [this](const QString& error) {
            if (m_dialog) m_dialog->hide();
            Q_EMIT statusMessage(tr("Report not written: %1").arg(error));
            Q_EMIT finished(QString(), error);
        });
    }
    m_dialog->setValue(0);
    m_dialog->show();
    return true;
}

}  // namespace saccade::ui
