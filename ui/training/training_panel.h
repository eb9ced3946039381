#pragma once
// TrainingPanel: train any registered model family from the GUI (models/model_family.h): the
// family's own form, built from the fields it declares (the options of `saccade-cli train NAME`
// that it shows on the form), the budget, schedule, seed and file every family takes, live curves
// named as the family reads them, a progress bar with ETA, and Stop (which saves). Training runs
// on a thread of its own; the window stays responsive. A finished model can be opened at once.

#include <map>

#include <QString>
#include <QWidget>

#include "models/model_family.h"
#include "ui/training/training_job.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace saccade::ui {

class TrainingChart;
class TrainingJob;

class TrainingPanel : public QWidget {
    Q_OBJECT

public:
    explicit TrainingPanel(QWidget* parent = nullptr);
    ~TrainingPanel() override;

    /// The run the form describes: the family's data, every one of its fields (the form's values,
    /// defaults for those it does not show), the shared options and the re-create command.
    FamilyTrainRequest request() const;
    /// The chosen family's name ("patch", "ram", ...).
    QString family() const;
    bool setFamily(const QString& family);
    /// Sets the form from `request` (tests, and a later "train again"): the dataset when the family
    /// trains on it, each field the form shows, and the budget, batch, learning rate, seed and file.
    void setRequest(const FamilyTrainRequest& request);
    /// Sets one field of the form; false when the form has no such field or refuses the value.
    bool setField(const QString& key, const QString& value);
    bool isRunning() const;
    void startTraining();
    void stopTraining();

    TrainingChart* chart() const { return m_chart; }
    QString statusText() const;

Q_SIGNALS:
    void statusMessage(const QString& message);
    /// "Open in Attention" (or "Open in Sequences") on a saved model.
    void openModelRequested(const QString& path);
    /// A job ended (finished, stopped or failed).
    void jobEnded();

private:
    void buildWidgets();
    QWidget* buildOptionsBox();
    void connectSignals();
    void onProgress(const TrainProgress& p);
    void setRunning(bool running);
    /// Refills the datasets and rebuilds the field form for the chosen family, at its defaults.
    void applyFamily();
    /// Enables the fields that apply under the form's values, when no job runs.
    void enableFamilyOptions();
    /// The dataset changed: the family may move settings that cannot hold for it.
    void fitToDataset();
    void updateOut();
    const ModelFamily& currentFamily() const;
    /// The form's value of field `key`, as text.
    QString fieldValue(const FamilyField& f) const;

    QComboBox* m_family = nullptr;
    QComboBox* m_dataset = nullptr;
    QFormLayout* m_fieldForm = nullptr;  ///< the form: Model, Dataset, the family's fields, the shared options
    std::map<std::string, QWidget*> m_fields;  ///< field key -> its editor
    QSpinBox* m_batch = nullptr;
    QDoubleSpinBox* m_minutes = nullptr;
    QSpinBox* m_iterations = nullptr;
    QDoubleSpinBox* m_lr = nullptr;
    QSpinBox* m_seed = nullptr;
    QLineEdit* m_out = nullptr;
    QPushButton* m_browse = nullptr;
    QPushButton* m_train = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_discard = nullptr;  ///< stops the run and keeps nothing of it
    QPushButton* m_openModel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    TrainingChart* m_chart = nullptr;
    TrainingJob* m_job = nullptr;
    QString m_lastCheckpoint;
    // The run trains into a staged checkpoint beside the chosen file; it replaces that file only
    // when kept (finished, or stopped and saved), and goes when discarded.
    QString m_stagedOut, m_finalOut;
    bool m_discarding = false;
    /// The run ended: its staged files become the chosen checkpoint, or go; what happened, in words.
    QString settleStagedRun(const TrainSummary& summary);
    QString m_lastEval;
    FamilySettings m_runSettings;  ///< the running job's settings (its progress lines read them)
};

}  // namespace saccade::ui
