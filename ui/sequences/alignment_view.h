#pragma once
// AlignmentView: one model's alignment matrix for the Sequences page. It shows the image core
// draws (render/alignment_render.h: the same picture the exports and `saccade-cli render`
// write), scaled to fit, with the current step outlined and its distribution over the source as
// bars; clicking a row picks that step. Views side by side draw at one scale.

#include <optional>

#include <QImage>
#include <QWidget>

#include "trace/seq_translation.h"

class QLabel;

namespace saccade::ui {

class AlignmentView : public QWidget {
    Q_OBJECT

public:
    explicit AlignmentView(QWidget* parent = nullptr);

    /// Shows a translation (title above: the model's name); clears with std::nullopt and a note.
    void setTranslation(const std::optional<SeqTranslation>& translation, const QString& title, const QString& note = {});
    const std::optional<SeqTranslation>& translation() const { return m_translation; }
    void setStep(int step);
    int step() const { return m_step; }
    /// false: the matrix; true: the head view (lines between tokens, weight as colour).
    void setHeadView(bool headView);
    /// The image as drawn now (the current step highlighted), at full size.
    const QImage& image() const { return m_image; }
    /// The scale the image is drawn at: what fits this view, and no more than what fits each
    /// visible view beside it (the same parent), so two models' pictures share one type size.
    double drawnScale() const;

Q_SIGNALS:
    void stepClicked(int step);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    QSize sizeHint() const override { return {420, 360}; }

private:
    void redraw();
    QRect imageRect() const;
    double fitScale() const;  ///< the largest scale at which this view's image fits it (at most 1.6)

    QLabel* m_title = nullptr;
    std::optional<SeqTranslation> m_translation;
    QString m_note;
    QImage m_image;
    int m_step = 0;
    bool m_headView = false;
};

}  // namespace saccade::ui
