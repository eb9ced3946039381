#pragma once
// The Saccade main window: a sidebar of pages (Attention, Training, Scalar lab, Estimator lab, Doctor) and a status bar. Geometry, page and inputs persist with QSettings.

#include <QHash>
#include <QRect>
#include <QFont>
#include <QMainWindow>
#include <QString>
#include <QStringList>

class QListWidget;
class QMenu;
class QLabel;
class QTimer;
class QStackedWidget;

namespace saccade::ui {

class AttentionPage;
class DoctorPanel;
class AnalysisPage;
class SequencesPage;
class LengthPage;
class AtlasPage;
class TrainingPanel;
class ScalarLabPanel;
class EstimatorLabPanel;
class ReportExporter;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    /// Page keys, as given to --page and stored in the settings.
    static const QString kAttentionPage;
    static const QString kTrainingPage;
    static const QString kScalarPage;
    static const QString kEstimatorPage;
    static const QString kDoctorPage;
    static const QString kAnalysisPage;
    static const QString kSequencesPage;
    static const QString kLengthPage;
    static const QString kAtlasPage;

    /// With `useSettings` false nothing is read or written (screenshots, tests).
    explicit MainWindow(bool useSettings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Keys of the pages, in sidebar order.
    QStringList pageKeys() const;
    QString currentPage() const;
    /// Shows the page `key`; false if there is no such page.
    bool setCurrentPage(const QString& key);

    AttentionPage* attentionPage() const { return m_attention; }
    TrainingPanel* trainingPanel() const { return m_training; }
    ScalarLabPanel* scalarLabPanel() const { return m_scalarLab; }
    EstimatorLabPanel* estimatorLabPanel() const { return m_estimatorLab; }
    DoctorPanel* doctorPanel() const { return m_doctor; }
    AnalysisPage* analysisPage() const { return m_analysis; }
    SequencesPage* sequencesPage() const { return m_sequences; }
    LengthPage* lengthPage() const { return m_length; }
    AtlasPage* atlasPage() const { return m_atlas; }
    ReportExporter* reportExporter() const { return m_report; }

    /// Writes the current session (model + CRC-32, image, rule, seed, step, overlays, page, tab,
    /// notes) to `path` (.saccade); an empty string on success, else why not.
    QString saveSessionFile(const QString& path);
    /// Opens a session: a moved or changed model, or a bad file, is reported (returned, shown in
    /// the status bar and the banner, and with `dialog`, the window shown, in a dialog), nothing
    /// guessed. Empty on success. A tour's slide never asks: its caption says what went wrong.
    QString openSessionFile(const QString& path, bool dialog = true);
    QString sessionNotes() const { return m_notes; }
    void setSessionNotes(const QString& notes);
    QStringList recentSessions() const { return m_recentSessions; }
    /// The notes band above the pages (a session's notes; the captions of a tour).
    QLabel* notesBand() const { return m_notesBand; }

    /// Presentation mode (F11): full screen, larger type, thicker overlays; Esc leaves it.
    void setPresentationMode(bool on);
    bool isPresenting() const { return m_presenting; }
    /// Starts a tour (a folder of sessions or a .saccade tour file) in presentation mode on its
    /// first session; Page Down / Page Up (or the timer) move through it. Empty on success.
    QString startTour(const QString& path);
    /// Moves `delta` sessions through the tour; false at either end or without a tour.
    bool advanceTour(int delta);
    int tourPosition() const { return m_tourIndex; }
    /// "Slide N of M" while a tour runs; empty otherwise.
    QString slideCounterText() const;

    /// True while the current page is still computing what it first shows.
    bool isBusy() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    /// Checkpoints (.pt) and images dropped anywhere open on the attention page.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// File and Help menus with their shortcuts (Ctrl+O, Ctrl+Shift+O, Ctrl+S, Ctrl+Q, F1).
    void buildSidebar();
    void buildPages();
    void buildCentralWidget();
    void buildStatusBar();
    void connectPages();
    void addMenus();
    void addPage(const QString& key, const QString& title, QWidget* page, const QString& tip);
    void restoreSettings();
    /// Moves and shrinks the window so its frame lies inside the screen's available geometry.
    void fitIntoScreen();
    /// Sizes every table's columns to their contents again, in the window's new type.
    void refitTables();
    void saveSettings() const;

    QListWidget* m_sidebar = nullptr;
    QStackedWidget* m_pages = nullptr;
    AttentionPage* m_attention = nullptr;
    TrainingPanel* m_training = nullptr;
    ScalarLabPanel* m_scalarLab = nullptr;
    EstimatorLabPanel* m_estimatorLab = nullptr;
    DoctorPanel* m_doctor = nullptr;
    AnalysisPage* m_analysis = nullptr;
    SequencesPage* m_sequences = nullptr;
    LengthPage* m_length = nullptr;
    AtlasPage* m_atlas = nullptr;
    ReportExporter* m_report = nullptr;
    QString m_checkpoint;  ///< the model open on the Attention page (File > Export report)
    QString m_notes;       ///< the session's free-text notes
    QLabel* m_notesBand = nullptr;
    bool m_presenting = false;
    QFont m_normalFont;
    QRect m_normalGeometry;  ///< the window before presentation mode, given back after it
    bool m_wasMaximized = false;
    QLabel* m_slideCounter = nullptr;  ///< "Slide 3 of 7" in the status bar during a tour
    QStringList m_tour;
    int m_tourIndex = -1;
    QTimer* m_tourTimer = nullptr;
    QStringList m_recentSessions;
    QMenu* m_recentMenu = nullptr;
    void rememberSession(const QString& path);
    void fillRecentMenu();
    QStringList m_keys;
    QHash<QWidget*, QString> m_lastStatus;
    bool m_useSettings = true;
};

}  // namespace saccade::ui
