#pragma once
// SeqEvaluationPanel: the Sequences page's evaluation box. Evaluate measures the page's models on
// their task's test split, or On pairs… on a file of pairs: exact match, token accuracy, AER,
// attention entropy, the permutation test and accuracy on lengths never trained, one column per
// model, on a worker with progress and Cancel.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QFuture>
#include <QGroupBox>
#include <QString>

#include "data/seq_pairs.h"
#include "models/translator.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace saccade::ui {

/// How the Sequences page names a model: its file's base name and its description.
QString seqModelName(const Translator& model);

/// What an evaluation measures: the models shown, under the page's rule and seed.
struct SeqEvaluationRequest {
    std::vector<std::shared_ptr<const Translator>> models;
    std::string rule;
    std::uint64_t seed = 1;
};

class SeqEvaluationPanel : public QGroupBox {
    Q_OBJECT

public:
    /// `request` is asked when an evaluation starts (the page opens its models then).
    explicit SeqEvaluationPanel(std::function<SeqEvaluationRequest()> request, QWidget* parent = nullptr);
    ~SeqEvaluationPanel() override;

    /// Starts the evaluation on the models' test split (the Evaluate button).
    void evaluate(std::int64_t limit = SeqTask::kTestSize);
    /// Starts it on a pairs file (the On pairs… button); false, with the error shown, when the
    /// file cannot be read.
    bool evaluatePairs(const QString& path, std::int64_t limit = SeqTask::kTestSize);
    /// Another model, rule or seed: the table (and a running evaluation) belonged to the old ones.
    void forget();
    bool running() const { return m_running; }
    QString resultsText() const;

Q_SIGNALS:
    void finished();
    void statusMessage(const QString& message);

private:
    void run(std::shared_ptr<const std::vector<SeqPairLine>> pairs, const QString& name, std::int64_t limit);
    void finish(const QString& html);

    std::function<SeqEvaluationRequest()> m_request;
    QPushButton* m_evaluate = nullptr;
    QPushButton* m_evaluatePairs = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_results = nullptr;
    bool m_running = false;
    int m_generation = 0;  ///< bumped by forget(); a late result of an older evaluation is dropped
    std::shared_ptr<std::atomic<bool>> m_cancelFlag;
    QFuture<void> m_job;  ///< waited for when the panel goes
};

}  // namespace saccade::ui
