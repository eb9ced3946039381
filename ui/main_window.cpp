#include "ui/main_window.h"
#include "ui/file_dialogs.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QKeySequence>
#include <QMessageBox>
#include <QMenuBar>
#include <QAction>
#include <QLabel>
#include <QTimer>
#include <QScreen>
#include <QVBoxLayout>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>
#include <QStatusBar>
#include <optional>

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QShowEvent>
#include <QTableView>
#include <QHeaderView>
#include <QFileInfo>
#include <QMimeData>

#include "models/model_family.h"
#include "ui/analysis/analysis_page.h"
#include "ui/sequences/sequences_page.h"
#include "ui/length/length_page.h"
#include "ui/atlas/atlas_page.h"
#include "ui/attention/attention_page.h"
#include "ui/doctor/doctor_panel.h"
#include "ui/labs/estimator_lab_panel.h"
#include "ui/labs/scalar_lab_panel.h"
#include "ui/report_export.h"
#include "io/checkpoint.h"
#include "io/session.h"
#include "common/samples_dir.h"
#include "ui/training/training_panel.h"
#include "ui/label_lines.h"

namespace saccade::ui {

const QString MainWindow::kAttentionPage = QStringLiteral("attention");
const QString MainWindow::kTrainingPage = QStringLiteral("training");
const QString MainWindow::kScalarPage = QStringLiteral("scalar");
const QString MainWindow::kEstimatorPage = QStringLiteral("estimators");
const QString MainWindow::kDoctorPage = QStringLiteral("doctor");
const QString MainWindow::kAnalysisPage = QStringLiteral("analysis");
const QString MainWindow::kSequencesPage = QStringLiteral("sequences");
const QString MainWindow::kLengthPage = QStringLiteral("length");
const QString MainWindow::kAtlasPage = QStringLiteral("atlas");

namespace {

const QString kOrganisation = QStringLiteral("Saccade");
const QString kApplication = QStringLiteral("saccade");
constexpr QSize kDefaultSize(1280, 800);
constexpr int kNoteLines = 4;  ///< the notes band's most lines

bool isSession(const QString& path) { return path.endsWith(QLatin1String(".saccade"), Qt::CaseInsensitive); }
bool isCheckpoint(const QString& path) { return path.endsWith(QLatin1String(".pt"), Qt::CaseInsensitive); }
bool isImage(const QString& path) {
    static const QStringList suffixes{QStringLiteral("png"), QStringLiteral("jpg"), QStringLiteral("jpeg"),
                                      QStringLiteral("bmp"), QStringLiteral("tif"), QStringLiteral("tiff")};
    return suffixes.contains(QFileInfo(path).suffix().toLower());
}

}  // namespace

MainWindow::MainWindow(bool useSettings, QWidget* parent)
    : QMainWindow(parent), m_useSettings(useSettings) {
    setWindowTitle(QStringLiteral("Saccade"));
    setObjectName(QStringLiteral("mainWindow"));
    buildSidebar();
    m_pages = new QStackedWidget(this);
    connect(m_sidebar, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
    buildPages();
    addMenus();
    buildCentralWidget();
    buildStatusBar();
    connectPages();
    resize(kDefaultSize);
    setAcceptDrops(true);
    m_sidebar->setCurrentRow(0);
    std::optional<QSettings> settings;
    if (m_useSettings) {
        settings.emplace(kOrganisation, kApplication);
        restoreSettings();
    }
    m_scalarLab->recompute();
    m_attention->start(settings ? &*settings : nullptr);
}

void MainWindow::buildSidebar() {
    m_sidebar = new QListWidget(this);
    m_sidebar->setObjectName(QStringLiteral("pageList"));
    m_sidebar->setFixedWidth(130);
    m_sidebar->setSpacing(2);
    QFont sidebarFont = m_sidebar->font();
    if (sidebarFont.pointSizeF() > 0) sidebarFont.setPointSizeF(sidebarFont.pointSizeF() * 1.15);
    m_sidebar->setFont(sidebarFont);
}

// Every page, in the sidebar's order.
void MainWindow::buildPages() {
    m_attention = new AttentionPage(this);
    m_training = new TrainingPanel(this);
    m_scalarLab = new ScalarLabPanel(this);
    m_estimatorLab = new EstimatorLabPanel(this);
    m_doctor = new DoctorPanel(this);
    m_analysis = new AnalysisPage(this);
    m_sequences = new SequencesPage(this);
    m_length = new LengthPage(this);
    m_atlas = new AtlasPage(this);
    addPage(kAttentionPage, tr("Attention"), m_attention,
            tr("Where a model looks, step by step: rules, seeds, sampled runs, every rule on a dataset, "
               "inadequate observations"));
    addPage(kAnalysisPage, tr("Probes & cost"), m_analysis,
            tr("Boundary sweeps, faithfulness of attention, and what selection costs per stage"));
    addPage(kSequencesPage, tr("Sequences"), m_sequences,
            tr("Soft attention over sequences: type an input, see each output token's alignment over it, against "
               "the gold alignment"));
    addPage(kLengthPage, tr("Length"), m_length,
            tr("Attention at length: exact, memory-efficient, local, block-sparse, top-k, linear and performer "
               "attention; their patterns, their error against exact attention, and their cost as n grows"));
    addPage(kAtlasPage, tr("Atlas"), m_atlas,
            tr("One head's queries and keys over many inputs in one map: a head that attends by position shows as "
               "bands, one that attends by content as clusters"));
    addPage(kTrainingPage, tr("Training"), m_training, tr("Train a model of any family with live curves"));
    addPage(kScalarPage, tr("Scalar lab"), m_scalarLab,
            tr("The worked example: E[f(hard attention)] against f(soft attention), exact and sampled"));
    addPage(kEstimatorPage, tr("Estimator lab"), m_estimatorLab,
            tr("Score-function (REINFORCE) gradients with and without baselines against straight-through Gumbel"));
    addPage(kDoctorPage, tr("Doctor"), m_doctor, tr("This machine: BLAS, speed, threads, devices, data"));
}

// The sidebar beside the session notes band over the pages.
void MainWindow::buildCentralWidget() {
    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_sidebar);
    // A session's notes (a tour's captions) above whichever page it opened; empty: hidden.
    m_notesBand = new QLabel(central);
    m_notesBand->setObjectName(QStringLiteral("sessionNotes"));
    m_notesBand->setWordWrap(true);
    m_notesBand->setTextFormat(Qt::PlainText);
    m_notesBand->setStyleSheet(QStringLiteral("QLabel { background: #eef4fb; color: #1b3a5c; "
                                              "border: 1px solid #9bb8d8; padding: 6px; }"));
    m_notesBand->hide();
    capLines(m_notesBand, kNoteLines);  // long notes are cut (whole in the tooltip), the window keeps its size
    auto* column = new QVBoxLayout;
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_notesBand);
    column->addWidget(m_pages, 1);
    layout->addLayout(column, 1);
    m_tourTimer = new QTimer(this);
    connect(m_tourTimer, &QTimer::timeout, this, [this] {
        if (!advanceTour(1)) m_tourTimer->stop();
    });
    setCentralWidget(central);
}

void MainWindow::buildStatusBar() {
    statusBar()->showMessage(tr("Ready"));
    m_slideCounter = new QLabel(this);
    m_slideCounter->setObjectName(QStringLiteral("slideCounter"));
    statusBar()->addPermanentWidget(m_slideCounter);
    m_slideCounter->hide();
}

// The pages' status messages, and what one page asks of another.
void MainWindow::connectPages() {
    // Each page's latest message is kept and shown again when the page comes back.
    auto keepStatus = [this](QWidget* page) {
        return [this, page](const QString& message) {
            m_lastStatus[page] = message;
            if (m_pages->currentWidget() == page) statusBar()->showMessage(message);
        };
    };
    connect(m_attention, &AttentionPage::statusMessage, this, keepStatus(m_attention));
    connect(m_training, &TrainingPanel::statusMessage, this, keepStatus(m_training));
    connect(m_training, &TrainingPanel::openModelRequested, this, [this](const QString& path) {
        if (fileReadsText(path.toStdString())) {  // a sequence model reads text: its own page
            setCurrentPage(kSequencesPage);
            m_sequences->openModel(path);
            return;
        }
        setCurrentPage(kAttentionPage);
        m_attention->openModel(path);
    });
    connect(m_attention, &AttentionPage::modelOpened, m_analysis, &AnalysisPage::setModel);
    connect(m_attention, &AttentionPage::folderInUse, m_analysis, &AnalysisPage::useFolder);
    connect(m_attention, &AttentionPage::sequenceModelRequested, this, [this](const QString& path) {
        setCurrentPage(kSequencesPage);
        m_sequences->openModel(path);
    });
    m_report = new ReportExporter(this);
    connect(m_report, &ReportExporter::statusMessage, this, [this](const QString& m) { statusBar()->showMessage(m); });
    connect(m_attention, &AttentionPage::modelOpened, this, [this](const QString& checkpoint) { m_checkpoint = checkpoint; });
    connect(m_analysis, &AnalysisPage::caseChosen, this,
            [this](const Image& image, const QString& id, const GroundTruth& truth, int runs, quint64 seed) {
                setCurrentPage(kAttentionPage);
                m_attention->openProbe(image, id, truth, runs, seed);
            });
    // A dot of the atlas opens its input at the placed layer and head: the sentence with that
    // head's map, or the ViT's test image under head:K at that layer's step.
    connect(m_atlas, &AtlasPage::openInput, this,
            [this](const QString& model, const QString& dataset, qint64 input, const QString& sentence, int layer, int head,
                   const QString& layerName) {
                if (fileReadsText(model.toStdString())) {
                    setCurrentPage(kSequencesPage);
                    m_sequences->openModel(model);
                    m_sequences->setText(sentence);
                    m_sequences->waitForIdle();  // the map list comes with the translation
                    if (!m_sequences->setMap(tr("%1 head %2").arg(layerName).arg(head)))
                        statusBar()->showMessage(tr("The sentence has no map '%1 head %2'").arg(layerName).arg(head));
                    return;
                }
                setCurrentPage(kAttentionPage);
                m_attention->openAt(model, dataset, input, QStringLiteral("head:%1").arg(head - 1), layer - 1);
            });
    connect(m_scalarLab, &ScalarLabPanel::statusMessage, this, keepStatus(m_scalarLab));
    connect(m_estimatorLab, &EstimatorLabPanel::statusMessage, this, keepStatus(m_estimatorLab));
    connect(m_doctor, &DoctorPanel::statusMessage, this, keepStatus(m_doctor));
    connect(m_sequences, &SequencesPage::statusMessage, this, keepStatus(m_sequences));
    connect(m_sidebar, &QListWidget::currentRowChanged, this,
            [this] { statusBar()->showMessage(m_lastStatus.value(m_pages->currentWidget())); });
}

MainWindow::~MainWindow() = default;

QStringList MainWindow::pageKeys() const { return m_keys; }

QString MainWindow::currentPage() const {
    const int row = m_sidebar->currentRow();
    return row >= 0 && row < m_keys.size() ? m_keys[row] : QString();
}

bool MainWindow::setCurrentPage(const QString& key) {
    const int row = m_keys.indexOf(key);
    if (row < 0) return false;
    m_sidebar->setCurrentRow(row);
    return true;
}

bool MainWindow::isBusy() const {
    if (m_pages->currentWidget() == m_doctor) return !m_doctor->hasFinished();
    if (m_pages->currentWidget() == m_scalarLab) return m_scalarLab->isBusy();
    if (m_pages->currentWidget() == m_estimatorLab) return m_estimatorLab->isBusy();
    if (m_pages->currentWidget() == m_attention) return m_attention->isBusy();
    if (m_pages->currentWidget() == m_sequences) return m_sequences->isBusy();
    if (m_pages->currentWidget() == m_length) return m_length->isBusy();
    if (m_pages->currentWidget() == m_atlas) return m_atlas->isBusy();
    return false;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_useSettings) saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::addPage(const QString& key, const QString& title, QWidget* page, const QString& tip) {
    m_keys << key;
    m_pages->addWidget(page);
    auto* item = new QListWidgetItem(title, m_sidebar);
    item->setToolTip(tip);
    item->setSizeHint(QSize(0, 36));
}

void MainWindow::restoreSettings() {
    QSettings settings(kOrganisation, kApplication);
    const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    if (!geometry.isEmpty()) restoreGeometry(geometry);
    setCurrentPage(settings.value(QStringLiteral("window/page"), kAttentionPage).toString());
    m_recentSessions = settings.value(QStringLiteral("window/recent_sessions")).toStringList();
    fillRecentMenu();
    m_scalarLab->restoreSettings(settings);
    rememberDialogFolder(settings.value(QStringLiteral("window/dialog_folder")).toString());
}

void MainWindow::saveSettings() const {
    QSettings settings(kOrganisation, kApplication);
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/page"), currentPage());
    settings.setValue(QStringLiteral("window/recent_sessions"), m_recentSessions);
    settings.setValue(QStringLiteral("window/dialog_folder"), lastDialogFolder());
    m_scalarLab->saveSettings(settings);
    m_attention->saveSettings(settings);
}

// Columns sized to their contents were sized in the type they were filled in: sized again in the
// new type once every widget has it ("deterministic" whole in presentation type, not "eterminist").
void MainWindow::refitTables() {
    QTimer::singleShot(0, this, [this] {
        for (auto* table : findChildren<QTableView*>()) {
            QHeaderView* header = table->horizontalHeader();
            bool fitted = false;  // columns the table's code sized (the others follow their contents or stretch)
            for (int c = 0; c < header->count(); ++c) fitted |= header->sectionResizeMode(c) == QHeaderView::Interactive;
            if (fitted) table->resizeColumnsToContents();
        }
    });
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    // Once the window system has framed the window (its title bar and borders are known).
    if (!event->spontaneous()) QTimer::singleShot(0, this, &MainWindow::fitIntoScreen);
}

// A 1280x800 screen with a panel, or the frame a window manager adds, must not push the step
// controls and the status bar off the bottom: the whole frame goes inside the available area.
void MainWindow::fitIntoScreen() {
    if (!screen() || m_presenting || isMaximized() || isFullScreen()) return;
    const QRect room = screen()->availableGeometry();
    if (room.contains(frameGeometry())) return;
    const QSize frameMargins = frameGeometry().size() - geometry().size();
    resize(size().boundedTo(room.size() - frameMargins).expandedTo(minimumSizeHint()));
    const QRect frame = frameGeometry();
    move(qBound(room.left(), frame.left(), qMax(room.left(), room.right() + 1 - frame.width())),
         qBound(room.top(), frame.top(), qMax(room.top(), room.bottom() + 1 - frame.height())));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (isCheckpoint(path) || isImage(path) || isSession(path)) return event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls()) {
        const QString path = url.toLocalFile();
        if (isSession(path)) {
            openSessionFile(path);
        } else if (isCheckpoint(path)) {
            setCurrentPage(kAttentionPage);
            m_attention->openModel(path);
        } else if (isImage(path)) {
            setCurrentPage(kAttentionPage);
            m_attention->openImageFile(path);
        }
    }
    event->acceptProposedAction();
}

QString MainWindow::saveSessionFile(const QString& path) {
    Session session;
    if (const QString why = m_attention->captureSession(session); !why.isEmpty()) return why;
    auto crc = fileCrc32(session.modelPath);
    if (!crc) return QString::fromStdString(crc.error());
    session.modelCrc32 = *crc;
    session.page = currentPage().toStdString();
    if (m_pages->currentWidget() == m_analysis)  // the page's own tab (the cost slide opens Cost)
        session.pageTab = m_analysis->tabs()->tabText(m_analysis->tabs()->currentIndex()).toLower().toStdString();
    session.notes = m_notes.toStdString();
    session.sequences = m_sequences->captureSession();
    auto saved = saveSession(session, path.toStdString());
    if (!saved) return QString::fromStdString(saved.error());
    rememberSession(path);
    statusBar()->showMessage(tr("Saved the session %1").arg(path));
    return {};
}

QString MainWindow::openSessionFile(const QString& path, bool dialog) {
    auto session = loadSession(path.toStdString());
    Result<Unit> model = session ? checkSessionModel(*session) : Result<Unit>(Error{session.error()});
    if (!model) {
        const QString error = QString::fromStdString(model.error());
        statusBar()->showMessage(error);
        // At start-up (saccade bad.saccade) there is no window for a dialog yet: the banner stays.
        m_attention->showBanner(tr("Session not opened"), error);
        if (dialog && isVisible()) QMessageBox::warning(this, tr("Open session"), error);
        return error;
    }
    setSessionNotes(QString::fromStdString(session->notes));
    setCurrentPage(QString::fromStdString(session->page)) || setCurrentPage(kAttentionPage);
    if (m_pages->currentWidget() == m_analysis) {
        // A session names its tab, or means the page's first: never the tab the window last showed
        // (a tour's slide 5 on Probes & cost once showed slide 6's Cost tab when stepped back to).
        m_analysis->tabs()->setCurrentIndex(0);
        for (int i = 0; i < m_analysis->tabs()->count(); ++i)
            if (m_analysis->tabs()->tabText(i).toLower().toStdString() == session->pageTab)
                m_analysis->tabs()->setCurrentIndex(i);
    }
    m_attention->openSession(*session);
    if (session->sequences) m_sequences->openSession(*session->sequences);
    if (m_tourIndex < 0 || m_tour.value(m_tourIndex) != path) rememberSession(path);  // a tour's slides are not "recent"
    // The notes are in their band above the pages; repeated here they ran under the slide counter.
    statusBar()->showMessage(tr("Opened the session %1").arg(QFileInfo(path).fileName()));
    return {};
}

void MainWindow::setSessionNotes(const QString& notes) {
    m_notes = notes;
    m_notesBand->setText(notes.trimmed());
    m_notesBand->setToolTip(notes.trimmed());
    m_notesBand->setVisible(!notes.trimmed().isEmpty());
}

void MainWindow::setPresentationMode(bool on) {
    if (on == m_presenting) return;
    m_presenting = on;
    if (on) {
        m_normalFont = font();
        QFont large = m_normalFont;
        if (large.pointSizeF() > 0) large.setPointSizeF(large.pointSizeF() * 1.5);
        else large.setPixelSize(int(large.pixelSize() * 1.5));
        setFont(large);
        QFont caption = large;  // the notes are the slide's caption: larger still
        if (caption.pointSizeF() > 0) caption.setPointSizeF(caption.pointSizeF() * 1.3);
        m_notesBand->setFont(caption);
        capLines(m_notesBand, kNoteLines, &caption);
        m_attention->setLineScale(2.0);
        refitTables();
        m_normalGeometry = geometry();
        m_wasMaximized = isMaximized();
        // The whole screen, also where no window manager applies the full-screen state.
        if (screen()) setGeometry(screen()->geometry());
        showFullScreen();
        statusBar()->showMessage(tr("Presentation: Page Down / Page Up move through a tour, F11 or Esc leaves"));
    } else {
        setFont(m_normalFont);
        m_notesBand->setFont(m_normalFont);
        capLines(m_notesBand, kNoteLines, &m_normalFont);
        m_attention->setLineScale(1.0);
        refitTables();
        m_tourTimer->stop();
        if (!m_tour.isEmpty()) setSessionNotes(QString());  // a tour's caption belongs to its slide
        m_tour.clear();  // leaving the presentation ends its tour
        m_tourIndex = -1;
        m_slideCounter->hide();
        showNormal();
        if (m_normalGeometry.isValid()) setGeometry(m_normalGeometry);  // also where no window manager restores it
        if (m_wasMaximized) showMaximized();
        else QTimer::singleShot(0, this, &MainWindow::fitIntoScreen);
    }
}

QString MainWindow::startTour(const QString& path) {
    auto tour = loadTour(path.toStdString());
    if (!tour) {
        statusBar()->showMessage(QString::fromStdString(tour.error()));
        return QString::fromStdString(tour.error());
    }
    m_tour.clear();
    for (const auto& s : tour->sessions) m_tour << QString::fromStdString(s);
    m_tourIndex = -1;
    setPresentationMode(true);
    if (tour->seconds > 0) m_tourTimer->start(int(tour->seconds * 1000));
    advanceTour(1);
    return {};
}

bool MainWindow::advanceTour(int delta) {
    const int next = m_tourIndex + delta;
    if (m_tour.isEmpty() || next < 0 || next >= m_tour.size()) return false;
    m_tourIndex = next;
    m_slideCounter->setText(slideCounterText());
    m_slideCounter->show();
    // No dialog: a modal one would stop a tour running by itself (and a --screenshot run) until
    // someone clicked; the slide's caption says what went wrong.
    const QString error = openSessionFile(m_tour[next], /*dialog=*/false);
    if (!error.isEmpty()) setSessionNotes(tr("Slide %1 of %2 not shown: %3").arg(next + 1).arg(m_tour.size()).arg(error));
    return true;
}

QString MainWindow::slideCounterText() const {
    return m_tourIndex < 0 ? QString() : tr("Slide %1 of %2").arg(m_tourIndex + 1).arg(m_tour.size());
}

void MainWindow::rememberSession(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_recentSessions.removeAll(absolute);
    m_recentSessions.prepend(absolute);
    while (m_recentSessions.size() > 8) m_recentSessions.removeLast();
    fillRecentMenu();
}

void MainWindow::fillRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    for (const QString& path : m_recentSessions)
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openSessionFile(path); })->setToolTip(path);
    m_recentMenu->setEnabled(!m_recentSessions.isEmpty());
}

void MainWindow::addMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    auto onAttention = [this](auto act) {
        return [this, act] {
            setCurrentPage(kAttentionPage);
            act();
        };
    };
    file->addAction(tr("Open &model…"), QKeySequence::Open,
                    onAttention([this] { m_attention->openModelDialog(); }));
    file->addAction(tr("Open &image…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                    onAttention([this] { m_attention->openImageDialog(); }));
    file->addAction(tr("&Export the view as PNG…"), QKeySequence::Save,
                    onAttention([this] { m_attention->exportViewAsPng(); }));
    file->addAction(tr("Export &report…"), QKeySequence(Qt::CTRL | Qt::Key_R), this,
                    [this] { m_report->exportReport(m_checkpoint, m_attention->comparisonDataset()); });
    file->addSeparator();
    file->addAction(tr("Open &session…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O), this, [this] {
        const QString path = openFileDialog(this, tr("Open session"), tr("Saccade sessions (*.saccade)"));
        if (!path.isEmpty()) openSessionFile(path);
    });
    file->addAction(tr("Save s&ession…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
        QString path = saveFileDialog(this, tr("Save session"), QStringLiteral("demo.saccade"),
                                      tr("Saccade sessions (*.saccade)"));
        if (path.isEmpty()) return;
        if (!path.endsWith(QStringLiteral(".saccade"))) path += QStringLiteral(".saccade");
        const QString error = saveSessionFile(path);
        if (!error.isEmpty()) QMessageBox::warning(this, tr("Save session"), error);
    });
    file->addAction(tr("Session &notes…"), this, [this] {
        bool ok = false;
        const QString notes = QInputDialog::getMultiLineText(this, tr("Session notes"),
                                                             tr("Notes saved with the session (shown when it opens):"),
                                                             m_notes, &ok);
        if (ok) setSessionNotes(notes);
    });
    m_recentMenu = file->addMenu(tr("&Recent sessions"));
    fillRecentMenu();
    file->addSeparator();
    file->addAction(tr("Start a &tour…"), this, [this] {
        const QString path = openFileDialog(this, tr("Start a tour"), tr("Tours and sessions (*.tour *.saccade)"));
        if (path.isEmpty()) return;
        // A .saccade picked from a tour folder starts the whole folder.
        const QString error = startTour(path.endsWith(QStringLiteral(".saccade")) ? QFileInfo(path).absolutePath() : path);
        if (!error.isEmpty()) QMessageBox::warning(this, tr("Start a tour"), error);
    });
    file->addAction(tr("Start the &default tour"), this, [this] {
        const QString tour = QDir(QString::fromStdString(findSamplesDir())).filePath(QStringLiteral("tour/story.tour"));
        const QString error = startTour(tour);
        if (!error.isEmpty()) QMessageBox::warning(this, tr("Start the default tour"), error);
    });
    auto* present = file->addAction(tr("&Presentation mode"), QKeySequence(Qt::Key_F11), this,
                                    [this] { setPresentationMode(!m_presenting); });
    addAction(present);  // F11 also with the menu bar hidden
    auto* next = new QAction(this);
    next->setShortcuts({QKeySequence(Qt::Key_PageDown)});
    connect(next, &QAction::triggered, this, [this] { advanceTour(1); });
    auto* previous = new QAction(this);
    previous->setShortcuts({QKeySequence(Qt::Key_PageUp)});
    connect(previous, &QAction::triggered, this, [this] { advanceTour(-1); });
    auto* leave = new QAction(this);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(leave, &QAction::triggered, this, [this] { setPresentationMode(false); });
    addActions({next, previous, leave});
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence(Qt::CTRL | Qt::Key_Q), this, &QWidget::close);
    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keys and pages"), QKeySequence::HelpContents, this, [this] {
        QMessageBox::information(
            this, tr("Saccade: keys and pages"),
            tr("<b>Keys</b><br>Ctrl+O open a model · Ctrl+Shift+O open an image · Ctrl+S export the view as "
               "PNG · Ctrl+Shift+S save a session · F11 presentation mode (Page Down / Page Up move through a tour, "
               "Esc leaves) · Ctrl+R export a self-contained HTML report of the model · Ctrl+Q quit · F1 this help<br>On the Attention and Sequences pages: Left/Right step, Home/End go to the first and last step. On the Attention page: Space plays, the wheel "
               "zooms, dragging pans, double-click fits.<br><br><b>Pages</b><br>Attention: where a model looks; the "
               "Runs tab samples again, the Dataset tab compares every rule, the Adequacy tab flags inadequate "
               "observations.<br>Probes &amp; cost: boundary sweeps, faithfulness, cost per stage.<br>Training, "
               "Scalar lab, Estimator lab, Doctor.<br><br>Every stochastic view takes a seed: the same seed gives "
               "the same result. The same commands run headless in <tt>saccade-cli</tt>."));
    });
}

}  // namespace saccade::ui
