#include "main_window.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QListWidget>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>

#include "doctor_panel.h"
#include "scalar_lab_panel.h"

namespace saccade::ui {

const QString MainWindow::kScalarPage = QStringLiteral("scalar");
const QString MainWindow::kDoctorPage = QStringLiteral("doctor");

namespace {

const QString kOrganisation = QStringLiteral("Saccade");
const QString kApplication = QStringLiteral("saccade");
constexpr QSize kDefaultSize(1200, 800);

}  // namespace

MainWindow::MainWindow(bool useSettings, QWidget* parent)
    : QMainWindow(parent), m_useSettings(useSettings) {
    setWindowTitle(QStringLiteral("Saccade"));
    setObjectName(QStringLiteral("mainWindow"));

    m_sidebar = new QListWidget(this);
    m_sidebar->setObjectName(QStringLiteral("pageList"));
    m_sidebar->setFixedWidth(130);
    m_sidebar->setSpacing(2);
    QFont sidebarFont = m_sidebar->font();
    if (sidebarFont.pointSizeF() > 0) sidebarFont.setPointSizeF(sidebarFont.pointSizeF() * 1.15);
    m_sidebar->setFont(sidebarFont);

    m_pages = new QStackedWidget(this);
    connect(m_sidebar, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);

    m_scalarLab = new ScalarLabPanel(this);
    m_doctor = new DoctorPanel(this);
    addPage(kScalarPage, tr("Scalar lab"), m_scalarLab);
    addPage(kDoctorPage, tr("Doctor"), m_doctor);

    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(m_sidebar);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    statusBar()->showMessage(tr("Ready"));
    connect(m_scalarLab, &ScalarLabPanel::statusMessage, this, [this](const QString& message) {
        if (m_pages->currentWidget() == m_scalarLab) statusBar()->showMessage(message);
    });
    connect(m_doctor, &DoctorPanel::statusMessage, this, [this](const QString& message) {
        if (m_pages->currentWidget() == m_doctor) statusBar()->showMessage(message);
    });
    connect(m_sidebar, &QListWidget::currentRowChanged, this,
            [this] { statusBar()->clearMessage(); });

    resize(kDefaultSize);
    m_sidebar->setCurrentRow(0);
    if (m_useSettings) restoreSettings();
    m_scalarLab->recompute();  // fills the status bar for the first page
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
    return false;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_useSettings) saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::addPage(const QString& key, const QString& title, QWidget* page) {
    m_keys << key;
    m_pages->addWidget(page);
    auto* item = new QListWidgetItem(title, m_sidebar);
    item->setSizeHint(QSize(0, 36));
}

void MainWindow::restoreSettings() {
    QSettings settings(kOrganisation, kApplication);
    const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    if (!geometry.isEmpty()) restoreGeometry(geometry);
    setCurrentPage(settings.value(QStringLiteral("window/page"), kScalarPage).toString());
    m_scalarLab->restoreSettings(settings);
}

void MainWindow::saveSettings() const {
    QSettings settings(kOrganisation, kApplication);
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/page"), currentPage());
    m_scalarLab->saveSettings(settings);
}

}  // namespace saccade::ui
