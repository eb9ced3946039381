#include "ui/doctor/doctor_panel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <QtGlobal>
#include <exception>

namespace saccade::ui {

namespace {

const QColor kWarningBackground(0xff, 0xe0, 0xb2);
const QColor kFixBackground(0xc8, 0xe6, 0xc9);

DoctorRun runDoctorInBackground() {
    DoctorRun run;
    try {
        run.report = runDoctor();
    } catch (const std::exception& e) {
        run.error = QStringLiteral("The doctor failed: %1").arg(QString::fromUtf8(e.what()));
    } catch (...) {
        run.error = QStringLiteral("The doctor failed with an unknown exception");
    }
    return run;
}

// Core's text names LibTorch, OpenCV and the compiler; the GUI adds the Qt it runs on.
QString withQtVersion(const QString& text) {
    const QString qt = QStringLiteral("Qt %1").arg(QString::fromLatin1(qVersion()));
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& line : lines) {
        if (line.startsWith(QLatin1String("Libraries"))) {
            line += QStringLiteral(", ") + qt;
            return lines.join(QLatin1Char('\n'));
        }
    }
    return QStringLiteral("Libraries      %1\n").arg(qt) + text;
}

}  // namespace

DoctorPanel::DoctorPanel(QWidget* parent) : QWidget(parent) {
    auto* intro = new QLabel(
        tr("What this machine gives the engine: the BLAS and its measured speed, threads, "
           "devices, the backends for data-parallel training, library versions and data. Anything "
           "slow or missing is listed with its "
           "fix. The same report is printed by <tt>saccade-cli doctor</tt>."),
        this);
    intro->setWordWrap(true);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    QFont big = m_summary->font();
    big.setBold(true);
    if (big.pointSizeF() > 0) big.setPointSizeF(big.pointSizeF() * 1.3);
    m_summary->setFont(big);

    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("warningsLabel"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::RichText);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->hide();

    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);  // indeterminate: the doctor reports no progress
    m_busy->setTextVisible(false);
    m_busy->setMaximumWidth(240);
    m_busy->hide();

    m_runAgain = new QPushButton(tr("Run again"), this);
    m_runAgain->setObjectName(QStringLiteral("runAgainButton"));
    connect(m_runAgain, &QPushButton::clicked, this, &DoctorPanel::run);

    m_text = new QPlainTextEdit(this);
    m_text->setObjectName(QStringLiteral("reportView"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* header = new QHBoxLayout;
    header->addWidget(m_summary, 1);
    header->addWidget(m_busy);
    header->addWidget(m_runAgain);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(header);
    layout->addWidget(m_warnings);
    layout->addWidget(m_text, 1);

    connect(&m_watcher, &QFutureWatcher<DoctorRun>::finished, this, &DoctorPanel::onFinished);
    m_summary->setText(tr("Not run yet"));
}

DoctorPanel::~DoctorPanel() {
    // The job owns nothing of ours, but a running matrix product should not outlive the window.
    m_watcher.waitForFinished();
}

QString DoctorPanel::reportText() const { return m_text->toPlainText(); }

QString DoctorPanel::summaryText() const { return m_summary->text(); }

void DoctorPanel::run() {
    if (m_watcher.isRunning()) return;
    m_started = true;
    m_busy->show();
    m_runAgain->setEnabled(false);
    m_summary->setText(tr("Measuring this machine\u2026"));
    Q_EMIT statusMessage(tr("Doctor: measuring this machine\u2026"));
    m_watcher.setFuture(QtConcurrent::run(runDoctorInBackground));
}

void DoctorPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!m_started) run();
}

void DoctorPanel::onFinished() {
    const DoctorRun run = m_watcher.result();
    m_busy->hide();
    m_runAgain->setEnabled(true);
    m_finished = true;
    if (run.report) {
        showReport(*run.report);
    } else {
        m_summary->setText(run.error);
        m_text->clear();
        m_warnings->hide();
        Q_EMIT statusMessage(run.error);
    }
    Q_EMIT finished();
}

void DoctorPanel::showReport(const DoctorReport& report) {
    const QString speed = tr("%1 GFLOP/s").arg(report.matmulGflops, 0, 'f', 1);
    m_summary->setText(tr("%1 with %2, intra-op threads: %3")
                           .arg(speed, QString::fromStdString(report.blasName))
                           .arg(report.intraOpThreads));
    m_text->setPlainText(withQtVersion(QString::fromStdString(doctorToText(report))));

    if (report.warnings.empty()) {
        m_warnings->setText(tr("<b style='color:#2e7d32'>No problems found.</b>"));
    } else {
        const int count = static_cast<int>(report.warnings.size());
        QString html = count == 1 ? tr("<b style='color:#e65100'>1 warning:</b>")
                                  : tr("<b style='color:#e65100'>%1 warnings:</b>").arg(count);
        html += QStringLiteral("<ul style='margin-left:-20px'>");
        for (const DoctorWarning& w : report.warnings) {
            html += QStringLiteral("<li><b>%1</b><br/>fix: <tt>%2</tt></li>")
                        .arg(QString::fromStdString(w.message).toHtmlEscaped(),
                             QString::fromStdString(w.fix).toHtmlEscaped());
        }
        html += QStringLiteral("</ul>");
        m_warnings->setText(html);
    }
    m_warnings->show();
    highlightWarnings(report);
    const int count = static_cast<int>(report.warnings.size());
    Q_EMIT statusMessage(count == 1 ? tr("Doctor: %1, 1 warning").arg(speed)
                                    : tr("Doctor: %1, %2 warnings").arg(speed).arg(count));
}

void DoctorPanel::highlightWarnings(const DoctorReport& report) {
    // Mark the report's lines that carry a warning or its fix, whatever core's layout.
    QList<QTextEdit::ExtraSelection> selections;
    for (QTextBlock block = m_text->document()->begin(); block.isValid(); block = block.next()) {
        const QString line = block.text();
        for (const DoctorWarning& w : report.warnings) {
            const bool isMessage = line.contains(QString::fromStdString(w.message));
            const bool isFix = !w.fix.empty() && line.contains(QString::fromStdString(w.fix));
            if (!isMessage && !isFix) continue;
            QTextEdit::ExtraSelection selection;
            selection.cursor = QTextCursor(block);
            selection.format.setBackground(isMessage ? kWarningBackground : kFixBackground);
            selection.format.setProperty(QTextFormat::FullWidthSelection, true);
            if (isMessage) selection.format.setFontWeight(QFont::Bold);
            selections << selection;
            break;
        }
    }
    m_text->setExtraSelections(selections);
}

}  // namespace saccade::ui
