#pragma once
// AtlasMapView: the atlas (core analysis/atlas.h) drawn with Qt: every query and key of the head as
// a dot at its place in the 2-D map, queries in blues and keys in reds from dark (the first
// position) to light (the last), as `saccade-cli atlas --out F.png` draws them. Hovering a dot
// names it (its token or patch, its input, query or key, and for a query the key it attends to
// most); clicking one says which input it belongs to (pointChosen).

#include <QWidget>
#include <optional>

#include "analysis/atlas/atlas.h"

namespace saccade::ui {

class AtlasMapView : public QWidget {
    Q_OBJECT

public:
    explicit AtlasMapView(QWidget* parent = nullptr);

    void setAtlas(const Atlas& atlas);
    /// No atlas: `message` in the middle instead.
    void clear(const QString& message);
    bool hasAtlas() const { return m_atlas.has_value(); }
    /// The index of the point drawn nearest widget position `at` (within 6 px), or -1.
    int pointAt(const QPointF& at) const;
    /// Where point `index` is drawn (widget coordinates).
    QPointF drawnAt(int index) const;
    /// The text a hover over point `index` shows.
    QString describe(int index) const;

    QSize sizeHint() const override { return {520, 520}; }
    QSize minimumSizeHint() const override { return {240, 240}; }

Q_SIGNALS:
    void pointChosen(int input, int position, bool query);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF plotRect() const;

    std::optional<Atlas> m_atlas;
    QString m_message;
    double m_minX = 0, m_maxX = 1, m_minY = 0, m_maxY = 1;
    int m_lastPosition[2] = {1, 1};  ///< keys', queries' (cross-attention: two sequences)
};

}  // namespace saccade::ui
