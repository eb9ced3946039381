#include "ui/attention/attention_canvas.h"

#include <numeric>

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "render/trace_render.h"
#include "trace/rule_kind.h"

namespace saccade::ui {

namespace {

constexpr double kMinZoom = 0.05, kMaxZoom = 64.0;
constexpr double kWheelStep = 1.25;  // zoom factor per wheel notch
constexpr int kMargin = 8;           // around the fitted image, widget pixels
constexpr int kLegendHeight = 34;
const QColor kBackground(38, 40, 44);
const QColor kChosen(0, 255, 255);        // as the CLI renderer's kChosenColour
const QColor kPathColour(255, 255, 255);
const QColor kTruthColour(60, 220, 90);
const QColor kGlimpseColour(255, 196, 0);

QColor inferno(double t, int alpha = 255) {
    const auto c = infernoColour(t);
    return QColor(c[0], c[1], c[2], alpha);
}

QPen cosmeticPen(const QColor& colour, double width, Qt::PenStyle style = Qt::SolidLine) {
    QPen pen(colour, width, style);
    pen.setCosmetic(true);
    return pen;
}

// A number in a small filled disc, centred at `centre` (device coordinates).
void drawBadge(QPainter& p, QPointF centre, const QString& text, const QColor& fill, const QColor& ink) {
    const QFontMetricsF fm(p.font());
    const double r = std::max(fm.height(), fm.horizontalAdvance(text) + 4) / 2 + 1;
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawEllipse(centre, r, r);
    p.setPen(ink);
    p.drawText(QRectF(centre.x() - r, centre.y() - r, 2 * r, 2 * r), Qt::AlignCenter, text);
}

// A text tag in a filled box whose bottom-left corner is at `corner` (device coordinates).
void drawTag(QPainter& p, QPointF corner, const QString& text, const QColor& fill, const QColor& ink) {
    const QFontMetricsF fm(p.font());
    const QRectF box(corner.x(), corner.y() - fm.height() - 4, fm.horizontalAdvance(text) + 8, fm.height() + 4);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawRect(box);
    p.setPen(ink);
    p.drawText(box, Qt::AlignCenter, text);
}

}  // namespace

AttentionCanvas::AttentionCanvas(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionCanvas"));
    setMinimumSize(240, 240);
    setMouseTracking(true);  // hovering reads out the cell under the cursor
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void AttentionCanvas::setImage(const QImage& image) {
    const bool resized = image.size() != m_image.size();
    m_image = image;
    if (resized || m_fitted) fitToWindow();
    update();
}

void AttentionCanvas::setTrace(const Trace& trace) {
    m_trace = trace;
    m_step = std::clamp(m_step, 0, std::max(0, int(trace.steps.size()) - 1));
    rebuildHeatmap();
    update();
}

void AttentionCanvas::setVisits(const std::vector<std::vector<double>>& perStep, int rows, int cols) {
    m_visits = rows > 0 && cols > 0 ? perStep : std::vector<std::vector<double>>{};
    m_visitRows = rows;
    m_visitCols = cols;
    update();
}

std::vector<bool> labelledVisits(const std::vector<double>& visits) {
    std::vector<int> order(visits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return visits[size_t(a)] > visits[size_t(b)]; });
    std::vector<bool> labelled(visits.size(), false);
    for (std::size_t i = 0; i < order.size() && i < kLabelledVisits; ++i)
        labelled[size_t(order[i])] = visits[size_t(order[i])] >= 0.005;  // a share that rounds to 0% says nothing
    return labelled;
}

void AttentionCanvas::paintVisits(QPainter& p, const QTransform& t) const {
    if (m_visits.empty() || m_step >= int(m_visits.size())) return;
    const auto& visits = m_visits[size_t(m_step)];
    if (int(visits.size()) != m_visitRows * m_visitCols) return;
    const double most = *std::max_element(visits.begin(), visits.end());
    if (most <= 0) return;
    const double sx = m_trace && m_trace->imageWidth > 0 ? double(m_image.width()) / m_trace->imageWidth : 1;
    const double sy = m_trace && m_trace->imageHeight > 0 ? double(m_image.height()) / m_trace->imageHeight : 1;
    // Dashed white outlines with the share of runs, no fill: the heatmap under them stays readable
    // and no hue is shared with the inferno scale.
    const QTransform toDevice = QTransform::fromScale(sx, sy) * t;
    p.save();
    QFont font = p.font();
    font.setPixelSize(10);
    p.setFont(font);
    // Only the most visited cells carry their share: dozens of small labels would cover the map
    // (a captioner's runs spread over every cell), and a share that rounds to 0% says nothing.
    const std::vector<bool> labelled = labelledVisits(visits);
    for (int cell = 0; cell < int(visits.size()); ++cell) {
        if (visits[size_t(cell)] <= 0) continue;
        const QRectF r = toDevice.mapRect(cellRect(m_visitRows, m_visitCols, cell)).adjusted(1, 1, -1, -1);
        QPen pen(QColor(255, 255, 255, 230), visits[size_t(cell)] / most > 0.5 ? 2 : 1, Qt::DashLine);
        p.setPen(pen);
        p.drawRect(r);
        if (labelled[size_t(cell)] && r.width() >= 26 && r.height() >= 14) {
            const QString text = QStringLiteral("%1%").arg(std::lround(100 * visits[size_t(cell)]));
            const QRectF box(r.right() - 26, r.bottom() - 13, 25, 12);
            p.fillRect(box, QColor(0, 0, 0, 160));
            p.setPen(Qt::white);
            p.drawText(box, Qt::AlignCenter, text);
        }
    }
    p.restore();
}

void AttentionCanvas::clearTrace() {
    m_trace.reset();
    m_heatmap = QImage();
    update();
}

void AttentionCanvas::setMessage(const QString& message) {
    m_message = message;
    update();
}

void AttentionCanvas::setStep(int step) {
    if (!m_trace || m_trace->steps.empty()) return;
    step = std::clamp(step, 0, int(m_trace->steps.size()) - 1);
    if (step == m_step) return;
    m_step = step;
    rebuildHeatmap();
    update();
}

void AttentionCanvas::setOverlays(const OverlaySettings& overlays) {
    if (overlays == m_overlays) return;
    m_overlays = overlays;
    rebuildHeatmap();
    update();
}

void AttentionCanvas::setZoom(double zoom, QPointF anchor) {
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    // Keep the image point under `anchor` where it is.
    const QPointF imagePoint = (anchor - m_offset) / m_zoom;
    m_zoom = zoom;
    m_offset = anchor - imagePoint * m_zoom;
    m_fitted = false;
    update();
    Q_EMIT zoomChanged(m_zoom);
}

void AttentionCanvas::fitToWindow() {
    m_fitted = true;
    if (m_image.isNull()) return;
    const QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin - kLegendHeight);
    m_zoom = std::clamp(std::min(area.width() / m_image.width(), area.height() / m_image.height()),
                        kMinZoom, kMaxZoom);
    const QSizeF shown = QSizeF(m_image.size()) * m_zoom;
    m_offset = QPointF(area.left() + (area.width() - shown.width()) / 2,
                       area.top() + (area.height() - shown.height()) / 2);
    update();
    Q_EMIT zoomChanged(m_zoom);
}

void AttentionCanvas::actualSize() {
    setZoom(1.0, QPointF(width() / 2.0, height() / 2.0));
}

QPointF AttentionCanvas::imageToWidget(QPointF imagePoint) const {
    return imageTransform().map(imagePoint);
}

QTransform AttentionCanvas::imageTransform() const {
    return QTransform(m_zoom, 0, 0, m_zoom, m_offset.x(), m_offset.y());
}

QRectF AttentionCanvas::cellRect(int rows, int cols, int cell) const {
    const int w = m_trace ? m_trace->imageWidth : m_image.width();
    const int h = m_trace ? m_trace->imageHeight : m_image.height();
    const int r = cell / cols, c = cell % cols;
    const int x0 = w * c / cols, x1 = w * (c + 1) / cols;
    const int y0 = h * r / rows, y1 = h * (r + 1) / rows;
    return QRectF(x0, y0, x1 - x0, y1 - y0);
}

void AttentionCanvas::setScaleFloor(double floor) {
    if (floor == m_scaleFloor) return;
    m_scaleFloor = floor;
    rebuildHeatmap();
    update();
}

void AttentionCanvas::setLegendText(const QString& text) {
    m_legendText = text;
    update();
}

void AttentionCanvas::rebuildHeatmap() {
    m_heatmap = QImage();
    m_heatmapMax = m_stepMax = 0;
    if (!m_trace || m_step >= int(m_trace->steps.size())) return;
    const auto& grid = m_trace->steps[size_t(m_step)].grid;
    if (!grid || grid->rows <= 0 || grid->cols <= 0 ||
        int(grid->probs.size()) != grid->rows * grid->cols)
        return;
    m_heatmapMax = m_stepMax = *std::max_element(grid->probs.begin(), grid->probs.end());
    if (m_sameScale)  // the largest attention of any step: colours mean the same on every step
        for (const auto& step : m_trace->steps)
            if (step.grid && !step.grid->probs.empty())
                m_heatmapMax = std::max(m_heatmapMax, double(*std::max_element(step.grid->probs.begin(), step.grid->probs.end())));
    m_heatmapMax = std::max(m_heatmapMax, m_scaleFloor);
    // Opacity grows with attention, so cells the step ignores leave the image readable.
    const double opacity = std::clamp(m_overlays.heatmapOpacity, 0.0, 1.0);
    m_heatmap = QImage(grid->cols, grid->rows, QImage::Format_ARGB32);
    for (int r = 0; r < grid->rows; ++r)
        for (int c = 0; c < grid->cols; ++c) {
            const double t = m_heatmapMax > 0 ? grid->probs[size_t(r * grid->cols + c)] / m_heatmapMax : 0;
            const int alpha = int(std::lround(255 * opacity * (0.2 + 0.8 * t)));
            m_heatmap.setPixelColor(c, r, inferno(t, alpha));
        }
}

void AttentionCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), kBackground);
    if (m_image.isNull()) {
        p.setPen(QColor(220, 220, 220));
        p.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                   m_message.isEmpty() ? tr("No image") : m_message);
        return;
    }
    const QRectF legend(kMargin, height() - kLegendHeight - 2, std::min(580, width() - 2 * kMargin),
                        kLegendHeight);
    m_legendRect = legend;
    paintScene(p, imageTransform(), legend);
    if (!m_message.isEmpty()) {
        const int lines = p.fontMetrics().boundingRect(0, 0, width() - 16, height(), Qt::TextWordWrap, m_message).height();
        const QRectF banner(0, 0, width(), std::max(28, lines + 10));  // an error over an image, its lines wrapped
        p.fillRect(banner, QColor(150, 30, 30, 220));
        p.setPen(Qt::white);
        p.drawText(banner.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, m_message);
    }
}

void AttentionCanvas::paintScene(QPainter& p, const QTransform& t, QRectF legendArea) const {
    if (m_image.isNull()) return;
    p.save();
    p.setTransform(t, true);
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);  // pixels stay pixels when zoomed
    p.drawImage(QRectF(0, 0, m_image.width(), m_image.height()), m_image);
    p.restore();
    if (m_trace) {
        p.save();
        p.setRenderHint(QPainter::Antialiasing, true);
        if (m_overlays.heatmap) paintHeatmap(p, t);
        paintVisits(p, t);
        paintChoices(p, t);
        p.restore();
    }
    if (legendArea.isValid() && m_overlays.heatmap && !m_heatmap.isNull()) paintLegend(p, legendArea);
    else if (legendArea.isValid()) paintPolicyLegend(p, legendArea);
}

void AttentionCanvas::paintHeatmap(QPainter& p, const QTransform& t) const {
    if (m_heatmap.isNull()) return;
    const auto& grid = *m_trace->steps[size_t(m_step)].grid;
    const double sx = m_trace->imageWidth > 0 ? double(m_image.width()) / m_trace->imageWidth : 1;
    const double sy = m_trace->imageHeight > 0 ? double(m_image.height()) / m_trace->imageHeight : 1;
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setTransform(t, false);
    p.scale(sx, sy);
    // Cell by cell, so integer cell boundaries match cellRect() and the CLI renderer.
    for (int r = 0; r < grid.rows; ++r)
        for (int c = 0; c < grid.cols; ++c)
            p.fillRect(cellRect(grid.rows, grid.cols, r * grid.cols + c), m_heatmap.pixelColor(c, r));
    if (m_overlays.grid) {
        p.setPen(outline(QColor(255, 255, 255, 70), 1));
        for (int c = 1; c < grid.cols; ++c) {
            const double x = cellRect(grid.rows, grid.cols, c).left();
            p.drawLine(QPointF(x, 0), QPointF(x, m_trace->imageHeight));
        }
        for (int r = 1; r < grid.rows; ++r) {
            const double y = cellRect(grid.rows, grid.cols, r * grid.cols).top();
            p.drawLine(QPointF(0, y), QPointF(m_trace->imageWidth, y));
        }
    }
    p.restore();
    if (m_overlays.grid) paintGridLabels(p, t, grid.rows, grid.cols, sx, sy);
}

void AttentionCanvas::paintGridLabels(QPainter& p, const QTransform& t, int rows, int cols, double sx, double sy) const {
    const QTransform toDevice = QTransform::fromScale(sx, sy) * t;
    const QRectF first = toDevice.mapRect(cellRect(rows, cols, 0));
    if (first.width() < 14 || first.height() < 14) return;  // too small to label legibly
    p.save();
    QFont font = p.font();
    font.setPointSizeF(std::max(6.0, std::min(9.0, first.height() / 3)));
    p.setFont(font);
    auto label = [&](const QRectF& cell, int number) {
        const QRectF box(cell.left() + 1, cell.top() + 1, 18, 13);
        p.fillRect(box, QColor(0, 0, 0, 140));
        p.setPen(QColor(235, 235, 235));
        p.drawText(box, Qt::AlignCenter, QString::number(number));
    };
    for (int c = 1; c < cols; ++c) label(toDevice.mapRect(cellRect(rows, cols, c)), c);
    for (int r = 0; r < rows; ++r) label(toDevice.mapRect(cellRect(rows, cols, r * cols)), r);
    p.restore();
}

QVector<QPointF> AttentionCanvas::choiceCentres(int s) const {
    QVector<QPointF> centres;
    const auto& step = m_trace->steps[size_t(s)];
    if (step.chosenPoint) {
        centres << QPointF((*step.chosenPoint)[0], (*step.chosenPoint)[1]);
    } else if (step.grid) {
        for (int cell : step.chosenCells) centres << cellRect(step.grid->rows, step.grid->cols, cell).center();
    }
    return centres;
}

void AttentionCanvas::paintChoices(QPainter& p, const QTransform& imageToDevice) const {
    const double sx = m_trace->imageWidth > 0 ? double(m_image.width()) / m_trace->imageWidth : 1;
    const double sy = m_trace->imageHeight > 0 ? double(m_image.height()) / m_trace->imageHeight : 1;
    const QTransform t = QTransform::fromScale(sx, sy) * imageToDevice;
    QFont font = p.font();
    font.setBold(true);
    font.setPixelSize(int(12 * m_lineScale));
    p.setFont(font);

    if (m_overlays.truth && m_trace->groundTruth) paintTruth(p, t);
    if (m_overlays.path && m_step > 0) paintPath(p, t);
    if (m_overlays.chosen) paintChosen(p, t);
}

// The ground-truth boxes, dashed; a captioner's word that names an object: that one solid.
void AttentionCanvas::paintTruth(QPainter& p, const QTransform& t) const {
    p.setPen(outline(kTruthColour, 2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (const auto& b : m_trace->groundTruth->boxes)
        p.drawRect(t.mapRect(QRectF(b.x, b.y, b.w, b.h)));
    // A captioner's word that names an object: that object's box, solid, with its name.
    const int named = m_step < int(m_trace->steps.size()) ? m_trace->steps[size_t(m_step)].wordObject : -1;
    const auto& truth = *m_trace->groundTruth;
    if (named >= 0 && named < int(truth.boxes.size())) {
        const auto& b = truth.boxes[size_t(named)];
        const QRectF r = t.mapRect(QRectF(b.x, b.y, b.w, b.h));
        p.setPen(outline(kTruthColour, 3));
        p.drawRect(r);
        if (named < int(truth.names.size()))
            drawTag(p, r.topLeft() + QPointF(-1.5, -1.5), QString::fromStdString(truth.names[size_t(named)]),
                    kTruthColour, Qt::black);
    }
}

// The earlier steps' choices, joined and numbered.
void AttentionCanvas::paintPath(QPainter& p, const QTransform& t) const {
    QPolygonF path;
    for (int s = 0; s <= m_step; ++s) {
        const auto centres = choiceCentres(s);
        if (!centres.isEmpty()) path << t.map(centres.front());
    }
    p.setPen(outline(QColor(255, 255, 255, 200), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPolyline(path);
    for (int s = 0; s < m_step; ++s) {
        for (const QPointF& c : choiceCentres(s))
            drawBadge(p, t.map(c), QString::number(s + 1), QColor(255, 255, 255, 220), Qt::black);
    }
}

// The step's choice: its Gaussian, its glimpses, its cells (with their counts) and its number.
void AttentionCanvas::paintChosen(QPainter& p, const QTransform& t) const {
    const auto& step = m_trace->steps[size_t(m_step)];
    if (step.gaussian) {
        const auto& g = *step.gaussian;
        const QRectF sigma(g.meanX - g.stdX, g.meanY - g.stdY, 2 * g.stdX, 2 * g.stdY);
        QRadialGradient density(t.map(QPointF(g.meanX, g.meanY)), t.mapRect(sigma).width());
        density.setColorAt(0, QColor(255, 196, 0, 110));
        density.setColorAt(1, QColor(255, 196, 0, 0));
        p.setPen(Qt::NoPen);
        p.setBrush(density);
        p.drawEllipse(t.mapRect(sigma.adjusted(-g.stdX, -g.stdY, g.stdX, g.stdY)));
        p.setPen(outline(kGlimpseColour, 1.5, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(t.mapRect(sigma));  // the 1-sigma ellipse
    }
    p.setBrush(Qt::NoBrush);
    for (const auto& g : step.glimpses) {
        p.setPen(outline(kGlimpseColour, g.scale == 0 ? 2.0 : 1.2));
        p.drawRect(t.mapRect(QRectF(g.box.x, g.box.y, g.box.w, g.box.h)));
    }
    // K draws can pick one cell more than once: each distinct cell is outlined once, thicker the
    // more often it was drawn, with its count ("x3") in the corner.
    const QMap<int, int> counts = chosenCellCounts();
    const bool several = isRule(m_trace->rule, RuleKind::KSample);
    if (step.grid) {
        p.setRenderHint(QPainter::Antialiasing, false);
        for (auto it = counts.begin(); it != counts.end(); ++it) {
            const QRectF r = t.mapRect(cellRect(step.grid->rows, step.grid->cols, it.key()));
            p.setPen(outline(kChosen, several ? std::min(1.0 + it.value(), 6.0) : 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(1, 1, -1, -1));
            if (several)
                drawBadge(p, r.bottomRight() - QPointF(17, 12), QStringLiteral("\u00d7%1").arg(it.value()),
                          QColor(0, 0, 0, 210), kChosen);
        }
        p.setRenderHint(QPainter::Antialiasing, true);
    }
    if (step.chosenPoint) {
        for (const QPointF& c : choiceCentres(m_step))
            drawBadge(p, t.map(c), QString::number(m_step + 1), kChosen, Qt::black);
    } else if (step.grid) {
        for (auto it = counts.begin(); it != counts.end(); ++it)
            drawBadge(p, t.map(cellRect(step.grid->rows, step.grid->cols, it.key()).center()),
                      QString::number(m_step + 1), kChosen, Qt::black);
    }
}

QImage AttentionCanvas::renderToImage(int scale) const {
    if (m_image.isNull()) return {};
    scale = std::max(1, scale);
    const int legend = (m_overlays.heatmap && !m_heatmap.isNull()) ? kLegendHeight : 0;
    QImage out(m_image.width() * scale, m_image.height() * scale + legend, QImage::Format_RGB32);
    out.fill(kBackground);
    QPainter p(&out);
    paintScene(p, QTransform::fromScale(scale, scale),
               legend ? QRectF(4, m_image.height() * scale, out.width() - 8, legend) : QRectF());
    return out;
}

void AttentionCanvas::resizeEvent(QResizeEvent*) {
    if (m_fitted) fitToWindow();
}

void AttentionCanvas::wheelEvent(QWheelEvent* event) {
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0) return;
    setZoom(m_zoom * std::pow(kWheelStep, notches), event->position());
    event->accept();
}

void AttentionCanvas::setSameScale(bool same) {
    if (same == m_sameScale) return;
    m_sameScale = same;
    rebuildHeatmap();
    update();
    Q_EMIT sameScaleChanged(same);
}

void AttentionCanvas::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && m_legendRect.contains(event->position()) && !m_heatmap.isNull()) {
        setSameScale(!m_sameScale);  // the legend is the switch between the two scales
        return;
    }
    if (event->button() == Qt::LeftButton) {
        m_dragFrom = event->pos();
        setCursor(Qt::ClosedHandCursor);
    }
}

std::optional<int> AttentionCanvas::cellAt(QPointF widgetPoint) const {
    if (!m_trace || m_step < 0 || m_step >= int(m_trace->steps.size()) || m_image.isNull()) return std::nullopt;
    const auto& grid = m_trace->steps[size_t(m_step)].grid;
    if (!grid || grid->rows <= 0 || grid->cols <= 0) return std::nullopt;
    bool invertible = false;
    const QPointF imagePoint = imageTransform().inverted(&invertible).map(widgetPoint);
    if (!invertible) return std::nullopt;
    const double sx = m_trace->imageWidth > 0 ? double(m_image.width()) / m_trace->imageWidth : 1;
    const double sy = m_trace->imageHeight > 0 ? double(m_image.height()) / m_trace->imageHeight : 1;
    const QPointF p(imagePoint.x() / sx, imagePoint.y() / sy);
    for (int cell = 0; cell < grid->rows * grid->cols; ++cell)
        if (cellRect(grid->rows, grid->cols, cell).contains(p)) return cell;
    return std::nullopt;
}

QString AttentionCanvas::hoverText(QPointF widgetPoint) const {
    const auto cell = cellAt(widgetPoint);
    if (!cell) return {};
    const auto& step = m_trace->steps[size_t(m_step)];
    const auto& grid = *step.grid;
    const double prob = size_t(*cell) < grid.probs.size() ? double(grid.probs[size_t(*cell)]) : 0.0;
    QString text = tr("row %1, col %2: attention %3 at step %4")
                       .arg(*cell / grid.cols).arg(*cell % grid.cols).arg(prob, 0, 'f', 4).arg(m_step + 1);
    if (isRule(m_trace->rule, RuleKind::KSample))
        text += tr("; drawn %1 of %2 times").arg(chosenCellCounts().value(*cell)).arg(step.chosenCells.size());
    return text;
}

QMap<int, int> AttentionCanvas::chosenCellCounts() const {
    QMap<int, int> counts;
    if (!m_trace || m_step < 0 || m_step >= int(m_trace->steps.size())) return counts;
    const auto& step = m_trace->steps[size_t(m_step)];
    if (!step.grid) return counts;
    const int cells = step.grid->rows * step.grid->cols;
    for (int cell : step.chosenCells)
        if (cell >= 0 && cell < cells) ++counts[cell];
    return counts;
}

void AttentionCanvas::mouseMoveEvent(QMouseEvent* event) {
    if (!m_dragFrom) {
        QString text = hoverText(event->position());
        if (text.isEmpty() && m_legendRect.contains(event->position()) && !m_heatmap.isNull())
            text = m_sameScale ? tr("Click: each step's own colour scale") : tr("Click: one colour scale for every step");
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
        return;
    }
    m_offset += event->pos() - *m_dragFrom;
    m_dragFrom = event->pos();
    m_fitted = false;
    update();
}

void AttentionCanvas::mouseReleaseEvent(QMouseEvent*) {
    m_dragFrom.reset();
    unsetCursor();
}

void AttentionCanvas::mouseDoubleClickEvent(QMouseEvent*) { fitToWindow(); }

QPen AttentionCanvas::outline(const QColor& colour, double width, Qt::PenStyle style) const {
    return cosmeticPen(colour, width * m_lineScale, style);
}

void AttentionCanvas::setLineScale(double scale) {
    m_lineScale = std::clamp(scale, 1.0, 4.0);
    update();
}

}  // namespace saccade::ui
