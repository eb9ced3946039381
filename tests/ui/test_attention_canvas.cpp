// The canvas on hand-made traces: glimpse boxes and a Gaussian policy land on their pixels, the
// heatmap follows the distribution, zoom keeps the point under the cursor, fit centres the image.

#include <QSignalSpy>
#include <QtTest>

#include "ui/attention/attention_canvas.h"

using namespace saccade;
using namespace saccade::ui;

namespace {

// The glimpse amber (255, 196, 0), or at least 50% of it over the grey image (antialiased edges).
bool isGlimpseColour(QRgb c) {
    return qRed(c) > 150 && qGreen(c) > 0.65 * qRed(c) && qGreen(c) < 0.85 * qRed(c) && qBlue(c) < 0.3 * qRed(c);
}

// An antialiased line centred on x covers x-1 and x partly: one of x-1..x+1 carries its colour.
bool lineAt(const QImage& shot, int x, int y) {
    for (int dx = -1; dx <= 1; ++dx)
        if (isGlimpseColour(shot.pixel(x + dx, y))) return true;
    return false;
}

// A 60x60 trace with a 6x6 grid whose mass sits on one cell, a Gaussian policy and two glimpses.
Trace handMade() {
    Trace t;
    t.rule = "sample";
    t.imageWidth = t.imageHeight = 60;
    TraceStep step;
    step.grid = GridDistribution{6, 6, std::vector<float>(36, 0.0f)};
    step.grid->probs[14] = 1.0f;  // row 2, col 2: pixels [20, 30) x [20, 30)
    step.gaussian = GaussianPolicy{30, 30, 6, 6};
    step.chosenPoint = std::array<double, 2>{30, 30};
    step.glimpses = {GlimpseBox{0, Box{24, 24, 12, 12}}, GlimpseBox{1, Box{18, 18, 24, 24}}};
    t.steps.push_back(step);
    step.grid->probs[14] = 0.0f;
    step.grid->probs[0] = 1.0f;
    t.steps.push_back(step);
    return t;
}

QImage greyImage() {
    QImage image(60, 60, QImage::Format_Grayscale8);
    image.fill(40);
    return image;
}

}  // namespace

class TestAttentionCanvas : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void glimpseBoxesLandOnTheirPixels();
    void heatmapFollowsTheStep();
    void zoomKeepsTheAnchorAndFitCentres();
    void hoverReadsOutTheCellUnderTheCursor();
    void kSamplesShowHowOftenEachCellWasDrawn();
    void sameScaleComparesColoursAcrossSteps();
    void gaussianPolicyHasALegend();
    void runsOverlayLabelsOnlyTheMostVisitedCells();
};

void TestAttentionCanvas::glimpseBoxesLandOnTheirPixels() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    OverlaySettings o;
    o.heatmap = false;
    canvas.setOverlays(o);
    canvas.setImage(greyImage());
    canvas.setTrace(handMade());
    canvas.fitToWindow();
    const QImage shot = canvas.grab().toImage();
    for (const Box& b : {Box{24, 24, 12, 12}, Box{18, 18, 24, 24}}) {
        const QPointF tl = canvas.imageToWidget(QPointF(b.x, b.y));
        const QPointF br = canvas.imageToWidget(QPointF(b.x + b.w, b.y + b.h));
        const int midY = int((tl.y() + br.y()) / 2) + 3;
        QVERIFY2(lineAt(shot, int(std::round(tl.x())), midY), "left edge");
        QVERIFY2(lineAt(shot, int(std::round(br.x())), midY), "right edge");
        QVERIFY2(!lineAt(shot, int(std::round(tl.x())) - 5, midY), "left of the box");
        QVERIFY2(!lineAt(shot, int(std::round(tl.x())) + 5, midY), "inside the box");
    }
    // The 1-sigma ellipse passes through mean + sigma on the x axis (dashed: or its density).
    const QPointF widest = canvas.imageToWidget(QPointF(36, 30));
    QColor c = shot.pixelColor(int(std::round(widest.x())), int(std::round(widest.y())));
    QVERIFY2(c.red() > c.blue() + 60, qPrintable(c.name()));  // dashed ellipse or its orange density
}

void TestAttentionCanvas::heatmapFollowsTheStep() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    OverlaySettings o;
    o.chosen = false;
    o.path = false;
    o.heatmapOpacity = 1.0;
    canvas.setOverlays(o);
    canvas.setImage(greyImage());
    canvas.setTrace(handMade());
    canvas.fitToWindow();
    auto brightness = [&](int cell) {
        const QPointF c = canvas.imageToWidget(canvas.cellRect(6, 6, cell).center());
        return qGray(canvas.grab().toImage().pixel(c.toPoint()));
    };
    // Step 1: all mass on cell 14 (light yellow at full opacity), none on cell 0 (near black).
    QVERIFY2(brightness(14) > 200, qPrintable(QString::number(brightness(14))));
    QVERIFY2(brightness(0) < 35, qPrintable(QString::number(brightness(0))));  // grey 40, dimmed
    canvas.setStep(1);
    QCOMPARE(canvas.step(), 1);
    QVERIFY(brightness(0) > 200);
    QVERIFY(brightness(14) < 35);
    canvas.setStep(7);  // clamped to the last step
    QCOMPARE(canvas.step(), 1);
    // Cells have integer pixel boundaries, as the CLI renderer's.
    QCOMPARE(canvas.cellRect(6, 6, 14), QRectF(20, 20, 10, 10));
    QCOMPARE(canvas.cellRect(7, 7, 8), QRectF(8, 8, 9, 9));  // 60*1/7 = 8 .. 60*2/7 = 17
}

void TestAttentionCanvas::zoomKeepsTheAnchorAndFitCentres() {
    AttentionCanvas canvas;
    canvas.resize(600, 500);
    canvas.setImage(greyImage());
    canvas.fitToWindow();
    const QPointF centre = canvas.imageToWidget(QPointF(30, 30));
    QVERIFY(std::abs(centre.x() - 300) < 1.0);
    const double fitted = canvas.zoom();
    QVERIFY(fitted > 6 && fitted < 8.5);  // 60 px into about 460 px
    const QPointF anchor(200, 150);
    const QPointF before = (anchor - canvas.imageToWidget(QPointF(0, 0))) / canvas.zoom();
    canvas.setZoom(fitted * 2, anchor);
    const QPointF after = (anchor - canvas.imageToWidget(QPointF(0, 0))) / canvas.zoom();
    QVERIFY(std::abs(before.x() - after.x()) < 1e-9 && std::abs(before.y() - after.y()) < 1e-9);
    QCOMPARE(canvas.zoom(), fitted * 2);
    canvas.actualSize();
    QCOMPARE(canvas.zoom(), 1.0);
    // Dragging pans by the mouse movement.
    const QPointF origin = canvas.imageToWidget(QPointF(0, 0));
    QTest::mousePress(&canvas, Qt::LeftButton, {}, QPoint(100, 100));
    QMouseEvent move(QEvent::MouseMove, QPointF(130, 90), canvas.mapToGlobal(QPointF(130, 90)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&canvas, &move);
    QTest::mouseRelease(&canvas, Qt::LeftButton, {}, QPoint(130, 90));
    QCOMPARE(canvas.imageToWidget(QPointF(0, 0)), origin + QPointF(30, -10));
}

QTEST_MAIN(TestAttentionCanvas)
void TestAttentionCanvas::hoverReadsOutTheCellUnderTheCursor() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    canvas.setImage(greyImage());
    canvas.setTrace(handMade());
    canvas.fitToWindow();
    // Cell 14 (row 2, col 2) holds all the mass at step 1.
    const QPointF centre = canvas.imageToWidget(canvas.cellRect(6, 6, 14).center());
    QCOMPARE(canvas.cellAt(centre), std::optional<int>(14));
    QCOMPARE(canvas.hoverText(centre), QStringLiteral("row 2, col 2: attention 1.0000 at step 1"));
    const QPointF corner = canvas.imageToWidget(canvas.cellRect(6, 6, 35).center());
    QCOMPARE(canvas.cellAt(corner), std::optional<int>(35));
    QVERIFY(canvas.hoverText(corner).startsWith(QStringLiteral("row 5, col 5: attention 0.0000")));
    // Off the image: nothing to read.
    QVERIFY(!canvas.cellAt(canvas.imageToWidget(QPointF(-5, 30))).has_value());
    QVERIFY(canvas.hoverText(canvas.imageToWidget(QPointF(70, 30))).isEmpty());
}

void TestAttentionCanvas::kSamplesShowHowOftenEachCellWasDrawn() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    canvas.setImage(greyImage());
    Trace t;
    t.rule = "ksample:5";
    t.imageWidth = t.imageHeight = 60;
    TraceStep step;
    step.grid = GridDistribution{6, 6, std::vector<float>(36, 1.0f / 36)};
    step.chosenCells = {14, 7, 14, 0, 14};  // cell 14 drawn three times of five
    t.steps.push_back(step);
    canvas.setTrace(t);
    canvas.fitToWindow();
    const QMap<int, int> counts = canvas.chosenCellCounts();
    QCOMPARE(counts.size(), 3);
    QCOMPARE(counts.value(14), 3);
    QCOMPARE(counts.value(7), 1);
    QCOMPARE(counts.value(0), 1);
    QVERIFY(canvas.hoverText(canvas.imageToWidget(canvas.cellRect(6, 6, 14).center()))
                .endsWith(QStringLiteral("; drawn 3 of 5 times")));
    QVERIFY(canvas.hoverText(canvas.imageToWidget(canvas.cellRect(6, 6, 35).center()))
                .endsWith(QStringLiteral("; drawn 0 of 5 times")));
    // The cell drawn three times has a thicker outline: more cyan pixels than a cell drawn once.
    const QImage shot = canvas.grab().toImage();
    const auto cyan = [&](int cell) {
        const QRect r = QRectF(canvas.imageToWidget(canvas.cellRect(6, 6, cell).topLeft()),
                               canvas.imageToWidget(canvas.cellRect(6, 6, cell).bottomRight())).toRect();
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) {
                const QColor c = shot.pixelColor(x, y);
                n += c.red() < 90 && c.green() > 200 && c.blue() > 200;
            }
        return n;
    };
    QVERIFY2(cyan(14) > cyan(7) + 100, qPrintable(QStringLiteral("%1 vs %2").arg(cyan(14)).arg(cyan(7))));
    QVERIFY(cyan(35) == 0);
}

void TestAttentionCanvas::sameScaleComparesColoursAcrossSteps() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    canvas.setImage(greyImage());
    Trace t = handMade();
    t.steps[0].grid->probs[14] = 0.5f;  // step 1 peaks at 0.5, step 2 at 1
    t.steps[0].grid->probs[15] = 0.5f;
    canvas.setTrace(t);
    canvas.fitToWindow();
    QCOMPARE(canvas.colourScaleMax(), 0.5);  // each step's own scale
    canvas.setSameScale(true);
    QCOMPARE(canvas.colourScaleMax(), 1.0);  // the largest attention of any step
    canvas.setStep(1);
    QCOMPARE(canvas.colourScaleMax(), 1.0);
    canvas.setStep(0);
    // The legend is the switch: clicking it goes back to each step's own scale.
    QSignalSpy toggled(&canvas, &AttentionCanvas::sameScaleChanged);
    canvas.grab();  // paints, placing the legend
    QTest::mouseClick(&canvas, Qt::LeftButton, {}, QPoint(20, canvas.height() - 20));
    QCOMPARE(toggled.count(), 1);
    QVERIFY(!canvas.sameScale());
    QCOMPARE(canvas.colourScaleMax(), 0.5);
}

void TestAttentionCanvas::gaussianPolicyHasALegend() {
    AttentionCanvas canvas;
    canvas.resize(640, 640);
    OverlaySettings o;
    o.heatmap = false;  // no attention legend: the policy's takes its place
    canvas.setOverlays(o);
    canvas.setImage(greyImage());
    canvas.setTrace(handMade());
    canvas.fitToWindow();
    const QImage shot = canvas.grab().toImage();
    // The amber swatch at the legend's left end (8 px margin, 34 px legend at the bottom).
    const QRgb swatch = shot.pixel(10, canvas.height() - 34 - 2 + 2 + 7);
    QVERIFY2(qRed(swatch) > 150 && qGreen(swatch) > 100 && qBlue(swatch) < 80,
             qPrintable(QStringLiteral("%1,%2,%3").arg(qRed(swatch)).arg(qGreen(swatch)).arg(qBlue(swatch))));
}

void TestAttentionCanvas::runsOverlayLabelsOnlyTheMostVisitedCells() {
    // A captioner's 100 runs over 64 cells: shares of 0.2% to 5%. Six labels at most, none "0%".
    std::vector<double> visits(64, 0.002);
    const double top[] = {0.05, 0.04, 0.04, 0.03, 0.03, 0.03, 0.03, 0.02};
    for (int i = 0; i < 8; ++i) visits[size_t(i * 7)] = top[i];
    const auto labelled = saccade::ui::labelledVisits(visits);
    QCOMPARE(int(std::count(labelled.begin(), labelled.end(), true)), 6);
    QVERIFY(labelled[0] && labelled[7] && labelled[14] && labelled[35]);  // the largest, ties in order
    QVERIFY(!labelled[42] && !labelled[49] && !labelled[1]);
    std::vector<double> faint(64, 0.004);  // nothing reaches 0.5%: nothing labelled
    const auto none = saccade::ui::labelledVisits(faint);
    QCOMPARE(int(std::count(none.begin(), none.end(), true)), 0);
}

#include "test_attention_canvas.moc"
