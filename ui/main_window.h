#pragma once
// The Saccade main window: a sidebar of pages (Scalar lab, Doctor; later the image canvas and
// model panels) and a status bar. Geometry, page and inputs persist with QSettings.

#include <QMainWindow>
#include <QString>
#include <QStringList>

class QListWidget;
class QStackedWidget;

namespace saccade::ui {

class DoctorPanel;
class ScalarLabPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    /// Page keys, as given to --page and stored in the settings.
    static const QString kScalarPage;
    static const QString kDoctorPage;

    /// With `useSettings` false nothing is read or written (screenshots, tests).
    explicit MainWindow(bool useSettings = true, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Keys of the pages, in sidebar order.
    QStringList pageKeys() const;
    QString currentPage() const;
    /// Shows the page `key`; false if there is no such page.
    bool setCurrentPage(const QString& key);

    ScalarLabPanel* scalarLabPanel() const { return m_scalarLab; }
    DoctorPanel* doctorPanel() const { return m_doctor; }

    /// True while the current page is still computing what it first shows.
    bool isBusy() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void addPage(const QString& key, const QString& title, QWidget* page);
    void restoreSettings();
    void saveSettings() const;

    QListWidget* m_sidebar = nullptr;
    QStackedWidget* m_pages = nullptr;
    ScalarLabPanel* m_scalarLab = nullptr;
    DoctorPanel* m_doctor = nullptr;
    QStringList m_keys;
    bool m_useSettings = true;
};

}  // namespace saccade::ui
