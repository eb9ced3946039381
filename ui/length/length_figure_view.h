#pragma once
// LengthFigureView: the length view's figure (render/length_render.h), drawn by core at the
// widget's own size so the GUI shows exactly what `saccade-cli length view` and the exports draw.
// Resizing re-draws from the stored view; nothing is measured again.

#include <QImage>
#include <QWidget>
#include <optional>

#include "analysis/length/length_view.h"

namespace saccade::ui {

class LengthFigureView : public QWidget {
    Q_OBJECT

public:
    explicit LengthFigureView(QWidget* parent = nullptr);

    void setView(const LengthView& view);
    /// Forgets the figure and shows `message` in its place ("Measuring…", "Cancelled", ...).
    void clear(const QString& message);
    QString message() const { return m_message; }
    const std::optional<LengthView>& view() const { return m_view; }
    QSize sizeHint() const override { return {1000, 380}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void redraw();

    std::optional<LengthView> m_view;
    QImage m_image;
    QString m_message;
};

}  // namespace saccade::ui
