#pragma once
// SequencesPage: soft attention over sequences. Type an input: each open sequence model
// translates it on a worker thread (the latest keystroke wins) and its alignment matrix redraws,
// target x source, the task's gold alignment outlined; a second model runs beside the first on
// the same input. The step slider (or a click on a row, or Play) walks the decoder's steps: that
// step's distribution over the source as bars and its likeliest words. Its evaluation box
// (SeqEvaluationPanel) measures both models on the task's test split or a file of pairs. A text
// encoder (models/text_encoder.h) shows its self-attention over the pieces, every layer and head
// and the rollout, and in place of the evaluation box its similarity box (SimilarityPanel): a
// second sentence and what each piece adds to their similarity. Exports: the matrix as PNG, SVG and CSV,
// the trace as JSON, the playback as a GIF.

#include <atomic>
#include <memory>
#include <optional>

#include <QElapsedTimer>
#include <QFuture>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "io/session.h"
#include "data/seq_pairs.h"
#include "models/translator.h"

class QComboBox;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QToolButton;

namespace saccade::ui {

class AlignmentView;
class SeqEvaluationPanel;
class SimilarityPanel;

class SequencesPage : public QWidget {
    Q_OBJECT

public:
    explicit SequencesPage(QWidget* parent = nullptr);
    ~SequencesPage() override;

    /// Opens a sequence model into the model list and selects it (slot 0: the main model, 1: the
    /// one compared); false with the reason on the page's status.
    bool openModel(const QString& path, int slot = 0);
    void setText(const QString& text);
    QString text() const;
    void setRule(const QString& rule);
    /// Waits (spinning the event loop) until no translation is running; for tests and exports.
    void waitForIdle();
    /// A translation or an evaluation is running.
    bool isBusy() const;
    AlignmentView* view(int slot) const;
    /// The text encoder's similarity box (hidden unless the main model is one).
    SimilarityPanel* similarityPanel() const { return m_similarity; }
    /// Milliseconds from the last edit to the redrawn matrices.
    double lastLatencyMs() const { return m_lastLatencyMs; }
    QString outputSummary() const;
    /// Starts the evaluation of the shown models on their task's test split (the Evaluate button).
    void evaluate(std::int64_t limit = SeqTask::kTestSize);
    /// Starts their evaluation on a pairs file (the On pairs… button); false, with the error
    /// shown, when the file cannot be read.
    bool evaluatePairs(const QString& path, std::int64_t limit = SeqTask::kTestSize);
    bool evaluating() const;
    QString evaluationText() const;
    void setStep(int step);
    /// Transformers: shows the map of that name ("cross layer 1 head 2", "encoder rollout", ...);
    /// false when the shown translation has none.
    bool setMap(const QString& name);
    void setHeadView(bool headView);
    /// Writes the main model's view by the path's suffix: .png, .svg, .csv (the matrix), .json
    /// (the trace), .gif (the playback). False with the reason on the status.
    bool exportFile(const QString& path);
    /// What a session keeps of this page: the shown models, input, rule, seed, step and map;
    /// none before a model is shown.
    std::optional<SessionSequences> captureSession() const;
    /// Reopens it: the models (opened when not listed), then the input, translated at once, then
    /// the map and step. False when a model cannot be opened (the page says why).
    bool openSession(const SessionSequences& session);

protected:
    void showEvent(QShowEvent* event) override;

Q_SIGNALS:
    void statusMessage(const QString& message);
    void translated();
    void evaluationFinished();

private:
    QHBoxLayout* buildModelRow();
    QHBoxLayout* buildInputRow();
    QHBoxLayout* buildStepRow();
    void connectSignals();
    void addShortcuts();
    /// Opens the bundled models once (first show or first use) and types the first example.
    void ensureModels();
    void refillExamples();
    void translate();
    void showTranslations();
    /// The Map list from the main model's translation (a text encoder's: no attribution maps).
    void refillMaps();
    void updateStepLabel();
    void exportAs(const QString& kind);
    std::shared_ptr<const Translator> modelAt(int slot) const;
    void refreshCombos();
    /// The rules of the main model ("model's own" first).
    void refillRules();

    std::vector<std::shared_ptr<const Translator>> m_models;
    QComboBox* m_model = nullptr;
    QComboBox* m_compare = nullptr;
    QComboBox* m_rule = nullptr;
    QSpinBox* m_seed = nullptr;
    QLineEdit* m_input = nullptr;
    QComboBox* m_examples = nullptr;
    QComboBox* m_map = nullptr;   ///< Transformers: which layer, head, mean or rollout
    QComboBox* m_mode = nullptr;  ///< matrix or head view
    QLabel* m_output = nullptr;
    AlignmentView* m_views[2] = {nullptr, nullptr};
    QSlider* m_stepSlider = nullptr;
    QLabel* m_stepLabel = nullptr;
    QPushButton* m_play = nullptr;
    QTimer* m_playTimer = nullptr;
    SeqEvaluationPanel* m_evaluation = nullptr;
    SimilarityPanel* m_similarity = nullptr;  ///< a text encoder's two-sentence similarity
    QToolButton* m_export = nullptr;

    bool m_busy = false, m_pending = false, m_modelsLoaded = false;
    std::optional<SeqTranslation> m_results2[2];
    QString m_errors[2];
    std::optional<SeqTranslation> m_attributed[2];  ///< the chosen attribution map of each model's translation
    QString m_attributionErrors[2];                 ///< why a model has none (an import without gradients)
    QFuture<void> m_translateJob;  ///< waited for when the page goes (the evaluation panel waits for its own)
    QElapsedTimer m_editClock;
    double m_lastLatencyMs = 0;
};

}  // namespace saccade::ui
