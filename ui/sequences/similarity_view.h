#pragma once
// SimilarityView: what the similarity of two sentences owes to each piece
// (analysis/attribution/text_similarity.h), drawn as two rows of pieces, each piece's box
// coloured by its value: orange pulls the sentences together, blue pushes them apart, white adds
// nothing; one scale for both sentences. Long sentences wrap. A tooltip gives each value.

#include <optional>

#include <QWidget>

#include "analysis/attribution/text_similarity.h"

namespace saccade::ui {

class SimilarityView : public QWidget {
    Q_OBJECT

public:
    explicit SimilarityView(QWidget* parent = nullptr);
    void setSimilarity(const SentenceSimilarity& s);
    void clear();
    bool hasSimilarity() const { return m_similarity.has_value(); }
    /// The box of piece `k` of sentence `side` (0 or 1) at the current width; empty when none.
    QRect pieceRect(int side, int k) const;
    /// The colour the box of piece `k` of sentence `side` is filled with.
    QColor pieceColour(int side, int k) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Layout {
        QList<QRect> boxes[2];
        QRect labels[2];
        int height = 0;
    };
    Layout layoutFor(int width) const;
    double scale() const;  ///< the largest |value| of both sentences

    std::optional<SentenceSimilarity> m_similarity;
};

}  // namespace saccade::ui
