#pragma once
// SimilarityPanel: the Sequences page's box for a text encoder (models/text_encoder.h). Beside the
// sentence typed on the page, a second one: the cosine similarity of their sentence embeddings and
// what each piece of each adds to it (integrated gradients; analysis/attribution/
// text_similarity.h), drawn by a SimilarityView. It measures on the shared job base (progress,
// Cancel), opening the encoder on the job's thread, and again whenever either sentence or the
// model changes.

#include <optional>

#include <QString>

#include "analysis/attribution/text_similarity.h"
#include "trace/seq_translation.h"
#include "ui/job_panel.h"

class QLineEdit;
class QTimer;

namespace saccade::ui {

class SimilarityView;

/// The Sequences page's output lines for a text encoder's encoding `t` shown as map `mapName`: the
/// embedding's size, the pieces, the words read as the unknown piece, and how to read the matrix.
QString textEncodingSummary(const SeqTranslation& t, const QString& mapName);

class SimilarityPanel : public JobPanel {
    Q_OBJECT

public:
    explicit SimilarityPanel(QWidget* parent = nullptr);
    /// The encoder and the sentence typed on the page; a new pair is measured shortly after.
    void setInput(const QString& modelPath, const QString& text);
    void setOther(const QString& text);
    QString other() const;
    void run() override;
    void clearResult() override;
    /// A measurement runs or is about to (the pair changed moments ago).
    bool busy() const;
    SimilarityView* view() const { return m_view; }
    const std::optional<SentenceSimilarity>& result() const { return m_result; }

Q_SIGNALS:
    void measured();

private:
    void show(const SentenceSimilarity& s);
    void showFailure(const QString& message);

    QLineEdit* m_other = nullptr;
    SimilarityView* m_view = nullptr;
    QTimer* m_debounce = nullptr;
    QString m_text;
    std::optional<SentenceSimilarity> m_result;
    bool m_again = false;  ///< the pair changed while a measurement ran
};

}  // namespace saccade::ui
