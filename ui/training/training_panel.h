#pragma once
// TrainingPanel: train any model family from the GUI (patch classifier, RAM, captioner, sequence
// model, Vision Transformer): the options of `saccade-cli train patch|ram|caption|seq|vit`, live
// curves (the captioner's with held-out BLEU-4 and attention mass), a progress bar with ETA, and
// Stop (which saves). Training runs on a thread of its own; the window stays responsive. A
// finished model can be opened at once.

#include <QString>
#include <QWidget>

#include "train/patch_trainer.h"
#include "training/training_job.h"

class QComboBox;
class QDoubleSpinBox;
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

    /// The options the form describes, in the patch trainer's terms (steps are the RAM's glimpses).
    PatchTrainOptions options() const;
    /// "patch", "ram", "caption", "seq" or "vit".
    QString family() const;
    bool setFamily(const QString& family);
    /// Sets the form (tests, and a later "train again").
    void setOptions(const PatchTrainOptions& options);
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
    void onProgress(const TrainProgress& p);
    void setRunning(bool running);
    /// Refills datasets and modes for the chosen family and enables only its options.
    void applyFamily();
    /// Enables the options the chosen family reads, when no job runs.
    void enableFamilyOptions();
    /// The chosen family's trainer with the form's options.
    TrainingJob::Trainer trainer() const;

    QComboBox* m_family = nullptr;
    QWidget* m_stepsLabel = nullptr;
    QWidget* m_gridLabel = nullptr;

    QComboBox* m_dataset = nullptr;
    QComboBox* m_mode = nullptr;
    QComboBox* m_scorer = nullptr;
    QComboBox* m_variant = nullptr;
    QSpinBox* m_steps = nullptr;
    QSpinBox* m_grid = nullptr;
    QSpinBox* m_batch = nullptr;
    QDoubleSpinBox* m_minutes = nullptr;
    QSpinBox* m_iterations = nullptr;
    QDoubleSpinBox* m_lr = nullptr;
    QDoubleSpinBox* m_sharpen = nullptr;  ///< the soft captioner's attention entropy weight
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
};

}  // namespace saccade::ui
