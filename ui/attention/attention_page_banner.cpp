// The Attention page's wait bar, its error banner and its exports.
#include "ui/attention/attention_page.h"
#include "ui/file_dialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QPalette>
#include <QHBoxLayout>
#include <QSettings>
#include <QSignalBlocker>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/attention/adequacy_mark.h"
#include "ui/attention/adequacy_panel.h"
#include "ui/attention/attention_canvas.h"
#include "ui/attention/attention_toolbar.h"
#include "ui/attention/caption_strip.h"
#include "models/model_family.h"
#include "ui/attention/compare_runs_panel.h"
#include "ui/attention/dataset_compare_panel.h"
#include "common/samples_dir.h"
#include "data/image_io.h"
#include "data/image_fit.h"
#include "ui/image_convert.h"
#include "ui/attention/image_panel.h"
#include "ui/attention/model_panel.h"
#include "ui/model_service.h"
#include "ui/attention/step_info_panel.h"
#include "ui/attention/step_scrubber.h"
#include "ui/attention/attribution_view.h"
#include "ui/attention/trace_export.h"
#include "ui/attention/export_options_dialog.h"
#include "render/trace_render.h"
#include "trace/ground_truth.h"
namespace saccade::ui {

void AttentionPage::buildWaitBar() {
    // A model call that takes long (an imported model whose forward loops) says so, with a Cancel,
    // over the top of the canvas: the layout does not move when it comes and goes.
    // A frame with a palette, not a style sheet: a style sheet's font would outlive presentation
    // type if the bar first showed while presenting.
    auto* bar = new QFrame(m_canvas);
    bar->setFrameShape(QFrame::Box);
    QPalette palette = bar->palette();
    palette.setColor(QPalette::Window, QColor(0xff, 0xf4, 0xd6));
    palette.setColor(QPalette::WindowText, QColor(0xe0, 0xc0, 0x60));  // the frame's line
    bar->setPalette(palette);
    m_waitBar = bar;
    m_waitBar->setObjectName(QStringLiteral("modelWaitBar"));
    auto* row = new QHBoxLayout(m_waitBar);
    row->setContentsMargins(6, 2, 6, 2);
    m_waitText = new QLabel(m_waitBar);
    m_waitText->setTextFormat(Qt::PlainText);
    m_waitText->setWordWrap(true);  // a narrow canvas (the Dataset tab open at 1280x800) takes it on two lines
    m_waitCancel = new QPushButton(tr("Cancel"), m_waitBar);
    m_waitCancel->setToolTip(tr("Give up on this model call: its work is abandoned and the window answers again"));
    row->addWidget(m_waitText, 1);
    row->addWidget(m_waitCancel);
    m_waitBar->setAutoFillBackground(true);
    m_waitBar->hide();
    connect(m_waitCancel, &QPushButton::clicked, m_service, &ModelService::cancelModelWork);
    auto* poll = new QTimer(this);
    poll->setInterval(500);
    connect(poll, &QTimer::timeout, this, [this] {
        const double seconds = m_service->busySeconds();
        const bool show = seconds >= kWaitBarSeconds;
        if (show) {
            m_waitText->setText(tr("Still %1 (%2 s). A model that never returns can be cancelled.")
                                    .arg(m_service->busyWith()).arg(seconds, 0, 'f', 0));
            const int width = m_canvas->width();
            m_waitBar->setGeometry(0, 0, width,
                                   m_waitBar->hasHeightForWidth() ? m_waitBar->heightForWidth(width) : m_waitBar->sizeHint().height());
            m_waitBar->raise();
        }
        if (show != m_waitBar->isVisible()) m_waitBar->setVisible(show);
    });
    poll->start();
}

void AttentionPage::showBanner(const QString& title, const QString& message) {
    m_banner->setText(tr("<b>%1:</b> %2 <a href='#close'>Dismiss</a>")
                          .arg(title.toHtmlEscaped(), message.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_banner->show();
    placeBanner();
}

void AttentionPage::placeBanner() {
    if (m_banner->isHidden()) return;
    const int width = m_canvas->width();
    m_banner->setGeometry(0, 0, width, m_banner->heightForWidth(width));
    m_banner->raise();
}

bool AttentionPage::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_canvas && event->type() == QEvent::Resize) placeBanner();
    return QWidget::eventFilter(watched, event);
}

void AttentionPage::showError(const QString& message) {
    m_awaitingFirst = false;
    m_canvas->setMessage(message);
    Q_EMIT statusMessage(message);
}

bool AttentionPage::isBusy() const { return m_service->isBusy() || m_awaitingFirst; }

void AttentionPage::exportViewAsPng() { exportAs(int(AttentionToolbar::Export::ViewPng)); }

QList<const AttentionCanvas*> AttentionPage::shownCanvases() const {
    QList<const AttentionCanvas*> shown;
    if (m_canvas->isVisibleTo(this)) shown << m_canvas;
    if (m_attribution->canvas()->isVisibleTo(this) && m_attribution->map()) shown << m_attribution->canvas();
    return shown;
}

void AttentionPage::exportAs(int what) {
    if (!m_trace) return;
    using E = AttentionToolbar::Export;
    const auto kind = E(what);
    struct Choice { const char* suffix; const char* filter; };
    const Choice choice = kind == E::ViewPng    ? Choice{"-view.png", "PNG images (*.png)"}
                          : kind == E::ViewSvg  ? Choice{"-view.svg", "SVG images (*.svg)"}
                          : kind == E::StripPng ? Choice{"-strip.png", "PNG images (*.png)"}
                          : kind == E::Gif      ? Choice{".gif", "Animated GIF (*.gif)"}
                          : kind == E::TraceJson ? Choice{".json", "Saccade traces (*.json)"}
                                                 : Choice{".csv", "CSV (*.csv)"};
    // Named for what it shows (model, image, rule, seed), in the folder of the last export.
    QString base = QStringLiteral("%1_%2_%3_seed%4")
                       .arg(QString::fromStdString(m_trace->modelId), QString::fromStdString(m_trace->imageId),
                            QString::fromStdString(m_trace->rule))
                       .arg(m_trace->seed);
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    // Image exports first ask for a size and a caption (for slides).
    const bool picture = kind == E::ViewPng || kind == E::ViewSvg || kind == E::StripPng || kind == E::Gif;
    ImageExportOptions options;
    if (picture) {
        const bool view = kind == E::ViewPng || kind == E::ViewSvg;
        ExportOptionsRequest request;
        request.what = view ? tr("view") : kind == E::StripPng ? tr("strip") : tr("GIF");
        request.imageSize = m_canvas->image().size();
        const int side = std::max({1, request.imageSize.width(), request.imageSize.height()});
        request.automaticScale = view ? exportScale(request.imageSize.width())
                                      : std::max(1, int(std::lround(240.0 / side)));
        request.scale = m_exportScale;
        request.caption = QString::fromStdString(traceCaption(*m_trace));
        request.captionOn = m_exportCaptionOn;
        auto chosen = askImageExportOptions(this, request);
        if (!chosen) return;
        options = *chosen;
        options.overlays = m_canvas->overlays();
        m_exportScale = options.scale;
        m_exportCaptionOn = !options.caption.isEmpty();
    }
    const QString path = saveFileDialog(this, tr("Export"), base + QLatin1String(choice.suffix), tr(choice.filter));
    if (path.isEmpty()) return;
    QString error;
    switch (kind) {
    case E::ViewPng: error = exportViewPng(shownCanvases(), path, options); break;
    case E::ViewSvg: error = exportViewSvg(shownCanvases(), path, options); break;
    case E::StripPng: error = exportStripPng(m_traceImage, *m_trace, path, options); break;
    case E::Gif: error = exportGif(m_traceImage, *m_trace, path, options); break;
    case E::TraceJson: error = exportTraceJson(*m_trace, path); break;
    case E::TraceCsv: error = exportTraceCsv(*m_trace, path); break;
    }
    Q_EMIT statusMessage(error.isEmpty() ? tr("Wrote %1").arg(path) : tr("Export failed: %1").arg(error));
}

}  // namespace saccade::ui
