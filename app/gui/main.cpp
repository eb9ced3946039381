// saccade: the desktop application. Thin: checks for a display, parses options, shows the window.

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPixmap>
#include <QTimer>
#include <QtGlobal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "models/model_family.h"
#include "ui/attention/attention_page.h"
#include "common/atomic_file.h"
#include "common/memory_meter.h"
#include "common/runtime.h"
#include "ui/report_pdf.h"
#include "ui/main_window.h"
#include "ui/model_service.h"
#include "ui/sequences/sequences_page.h"

namespace {

constexpr int kExitNoDisplay = 3;
constexpr int kExitUsage = 2;
constexpr int kScreenshotTimeoutMs = 60'000;
constexpr int kScreenshotSettleMs = 300;  // lets the chart lay out after the results arrive

bool hasEnv(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0';
}

// Qt aborts with a long plugin message when it finds no display; say what to do instead.
bool displayAvailable(int argc, char** argv) {
#ifdef Q_OS_LINUX
    if (hasEnv("DISPLAY") || hasEnv("WAYLAND_DISPLAY") || hasEnv("QT_QPA_PLATFORM")) return true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-platform") == 0) return true;  // Qt's own option
    }
    return false;
#else
    return true;
#endif
}

// Waits until the window has drawn its first results, then saves a PNG and quits.
void scheduleScreenshot(saccade::ui::MainWindow* window, const QString& file) {
    auto* timer = new QTimer(window);
    auto* clock = new QElapsedTimer;
    clock->start();
    timer->setInterval(50);
    QObject::connect(timer, &QTimer::timeout, window, [window, file, timer, clock] {
        const bool timedOut = clock->elapsed() > kScreenshotTimeoutMs;
        if (window->isBusy() && !timedOut) return;
        timer->stop();
        delete clock;
        if (timedOut) std::fprintf(stderr, "saccade: page still busy; saving it anyway\n");
        QTimer::singleShot(kScreenshotSettleMs, window, [window, file] {
            const QPixmap pixmap = window->grab();
            if (pixmap.isNull() || !pixmap.save(file, "PNG")) {
                std::fprintf(stderr, "saccade: could not write screenshot %s\n", qPrintable(file));
                QApplication::exit(1);
                return;
            }
            std::printf("saccade: wrote %s (%dx%d)\n", qPrintable(file), pixmap.width(),
                        pixmap.height());
            QApplication::exit(0);
        });
    });
    timer->start();
}

// Converting a report to PDF needs no screen: Qt draws it offscreen, and its own start-up
// warnings (no XDG_RUNTIME_DIR, ...) stay out of the one line this mode prints.
void quietForReportPdf(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--report-pdf") == 0) {
            setenv("QT_QPA_PLATFORM", "offscreen", 1);
            qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString&) {});
        }
}

void setApplicationInfo() {
    QApplication::setOrganizationName(QStringLiteral("Saccade"));
    QApplication::setApplicationName(QStringLiteral("saccade"));
    QApplication::setApplicationDisplayName(QStringLiteral("Saccade"));
    QApplication::setApplicationVersion(QStringLiteral(SACCADE_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/saccade.png")));
    // Wayland compositors match the window to the installed menu entry and icon by this name.
    QApplication::setDesktopFileName(QStringLiteral("io.github.saccade.Saccade"));
}

// The options besides help, version and the file.
struct GuiOptions {
    QCommandLineOption page{QStringLiteral("page"),
                            QStringLiteral("Open on page <page>: attention (the default), analysis, sequences, length, atlas, training, scalar, estimators or doctor."),
                            QStringLiteral("page")};
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window to <file> once its first results are drawn, "
                       "then exit. Ignores saved settings."),
        QStringLiteral("file")};
    QCommandLineOption reportPdf{
        QStringLiteral("report-pdf"),
        QStringLiteral("Write the report <html> (from saccade-cli report) as PDF to --pdf-out, then exit; "
                       "needs no display."),
        QStringLiteral("html")};
    QCommandLineOption pdfOut{QStringLiteral("pdf-out"), QStringLiteral("The PDF --report-pdf writes."),
                              QStringLiteral("pdf")};
};

void addOptions(QCommandLineParser& parser, const GuiOptions& options) {
    parser.setApplicationDescription(
        QStringLiteral("Saccade: a lab for hard and soft visual attention."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(options.reportPdf);
    parser.addOption(options.pdfOut);
    parser.addOption(options.page);
    parser.addOption(options.screenshot);
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A model checkpoint (.pt) to open instead of the bundled default, "
                                                "a session (.saccade) to reopen exactly, or a tour (.tour) to present."),
                                 QStringLiteral("[file]"));
}

// --report-pdf: writes the PDF and says so; the exit code.
int writePdfReport(const QCommandLineParser& parser, const GuiOptions& options) {
    const QString out = parser.value(options.pdfOut);
    if (!out.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
        std::fprintf(stderr, "saccade: --report-pdf needs --pdf-out FILE.pdf\n");
        return kExitUsage;
    }
    if (!QFileInfo(QFileInfo(out).absolutePath()).isDir()) {
        std::fprintf(stderr, "saccade: the folder '%s' of --pdf-out does not exist\n",
                     qPrintable(QFileInfo(out).absolutePath()));
        return kExitUsage;
    }
    auto html = saccade::readFile(parser.value(options.reportPdf).toStdString(), std::size_t{256} << 20);
    if (!html) {
        std::fprintf(stderr, "saccade: %s\n", html.error().c_str());
        return kExitUsage;
    }
    const QString error = saccade::ui::writeReportPdf(QString::fromStdString(*html), out);
    if (!error.isEmpty()) {
        std::fprintf(stderr, "saccade: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("wrote %s\n", qPrintable(out));
    return 0;
}

// The file given on the command line: a tour, a session, a sequence model or an image model.
void openFile(saccade::ui::MainWindow& window, const QString& file) {
    if (file.endsWith(QStringLiteral(".tour"), Qt::CaseInsensitive)) {
        const QString error = window.startTour(file);
        if (!error.isEmpty()) std::fprintf(stderr, "saccade: %s\n", qPrintable(error));
    } else if (file.endsWith(QStringLiteral(".saccade"), Qt::CaseInsensitive)) {
        // A moved or changed model is reported on stderr as well as in the window.
        const QString error = window.openSessionFile(file);
        if (!error.isEmpty()) std::fprintf(stderr, "saccade: %s\n", qPrintable(error));
    } else if (saccade::fileReadsText(file.toStdString())) {
        window.sequencesPage()->openModel(file);
        window.setCurrentPage(saccade::ui::MainWindow::kSequencesPage);
    } else {
        window.attentionPage()->openModel(file);
    }
}

}  // namespace

SACCADE_PASSIVE_OPENMP_WAIT()

int main(int argc, char** argv) {
    saccade::restartUnlessOpenMpWaitsPassively(argv);
    saccade::chooseBlasKernelsForTheProcessor(argv);
    quietForReportPdf(argc, argv);
    if (!displayAvailable(argc, argv)) {
        std::fprintf(stderr,
                     "saccade: no display found (DISPLAY is not set). Run the headless demo "
                     "instead: saccade-cli demo\n");
        return kExitNoDisplay;
    }

    saccade::tuneAllocator();
    // The Length page measures the memory attention takes; the meter counts from the start, before
    // any thread allocates.
    saccade::memory::installCpuMemoryMeter();
    QApplication app(argc, argv);
    setApplicationInfo();

    QCommandLineParser parser;
    const GuiOptions options;
    addOptions(parser, options);
    parser.process(app);

    if (parser.isSet(options.pdfOut) && !parser.isSet(options.reportPdf)) {
        std::fprintf(stderr, "saccade: --pdf-out goes with --report-pdf FILE.html\n");
        return kExitUsage;
    }
    if (parser.isSet(options.reportPdf)) return writePdfReport(parser, options);
    const bool screenshot = parser.isSet(options.screenshot);
    saccade::ui::MainWindow window(/*useSettings=*/!screenshot);
    if (parser.isSet(options.page)) {
        const QString page = parser.value(options.page);
        if (!window.setCurrentPage(page)) {
            std::fprintf(stderr, "saccade: unknown page \"%s\"; use one of: %s\n", qPrintable(page),
                         qPrintable(window.pageKeys().join(QStringLiteral(", "))));
            return kExitUsage;
        }
    }
    if (!parser.positionalArguments().isEmpty()) openFile(window, parser.positionalArguments().constFirst());
    window.show();
    if (screenshot) scheduleScreenshot(&window, parser.value(options.screenshot));
    const int code = app.exec();
    // A model call that never returned (an imported model whose forward loops) is not waited for:
    // the settings are saved (on close), so the process ends here, at once.
    if (saccade::ui::ModelService::callsRunning() > 0) {
        std::fflush(nullptr);
        std::_Exit(code);
    }
    return code;
}
