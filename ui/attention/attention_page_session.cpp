// The Attention page's start, its saved settings and its part of a session.
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

namespace {

const QString kDefaultModel = QStringLiteral("patch-soft-fashion60.pt");
const QString kGroup = QStringLiteral("attention/");

QString key(const char* name) { return kGroup + QLatin1String(name); }

}  // namespace

void AttentionPage::start(QSettings* settings) {
    const QString samples = QString::fromStdString(findSamplesDir());
    m_bundledFolder = samples.isEmpty() ? QString() : QDir(samples).filePath(QStringLiteral("models"));
    m_models->setBundledFolder(m_bundledFolder);
    QString model = m_bundledFolder.isEmpty() ? QString() : QDir(m_bundledFolder).filePath(kDefaultModel);
    if (settings) {
        model = settings->value(key("model"), model).toString();
        m_models->setDevice(settings->value(key("device"), QStringLiteral("auto")).toString());
        m_toolbar->setRule(settings->value(key("rule"), QStringLiteral("argmax")).toString());
        // Applied again once the model has loaded, over its training rule.
        m_restoredRule = settings->value(key("rule")).toString();
        m_shownModel = model;
        m_toolbar->setSeed(settings->value(key("seed"), 1).toULongLong());
        OverlaySettings o;
        o.heatmap = settings->value(key("overlay_heatmap"), o.heatmap).toBool();
        o.heatmapOpacity = settings->value(key("overlay_opacity"), o.heatmapOpacity).toDouble();
        o.chosen = settings->value(key("overlay_chosen"), o.chosen).toBool();
        o.path = settings->value(key("overlay_path"), o.path).toBool();
        o.truth = settings->value(key("overlay_truth"), o.truth).toBool();
        o.grid = settings->value(key("overlay_grid"), o.grid).toBool();
        m_toolbar->setOverlays(o);
        m_canvas->setOverlays(o);
        m_images->setRecentFiles(settings->value(key("recent_files")).toStringList());
        m_splitter->restoreState(settings->value(key("splitter")).toByteArray());
        m_inputFile = settings->value(key("image_file")).toString();
        m_inputDataset = settings->value(key("image_dataset")).toString();
        m_inputIndex = settings->value(key("image_index"), 0).toLongLong();
    }
    if (model.isEmpty()) {
        showError(tr("No bundled models were found (set SACCADE_SAMPLES_DIR to the samples folder), "
                     "and none was opened before: open a checkpoint in the Model tab."));
        m_tabs->setCurrentWidget(m_models);
        return;
    }
    Q_EMIT statusMessage(tr("Loading %1…").arg(QFileInfo(model).fileName()));
    m_awaitingFirst = true;
    loadModel(model, m_models->device());
}

void AttentionPage::saveSettings(QSettings& s) const {
    if (const auto& card = m_service->card()) s.setValue(key("model"), card->path);
    s.setValue(key("device"), m_models->device());
    s.setValue(key("rule"), m_toolbar->rule());
    s.setValue(key("seed"), m_toolbar->seed());
    const OverlaySettings o = m_toolbar->overlays();
    s.setValue(key("overlay_heatmap"), o.heatmap);
    s.setValue(key("overlay_opacity"), o.heatmapOpacity);
    s.setValue(key("overlay_chosen"), o.chosen);
    s.setValue(key("overlay_path"), o.path);
    s.setValue(key("overlay_truth"), o.truth);
    s.setValue(key("overlay_grid"), o.grid);
    s.setValue(key("recent_files"), m_images->recentFiles());
    s.setValue(key("splitter"), m_splitter->saveState());
    s.setValue(key("image_file"), m_inputFile);
    s.setValue(key("image_dataset"), m_inputDataset);
    s.setValue(key("image_index"), m_inputIndex);
}

QString AttentionPage::captureSession(Session& s) const {
    const auto& card = m_service->card();
    if (!card || !m_trace) return tr("Nothing to save yet: no model and trace on the Attention page.");
    if (m_inputFile.isEmpty() && m_inputDataset.isEmpty())
        return tr("The image open is a probe from the Probes & cost page (%1), which a session cannot store: "
                  "open a dataset sample or an image file, then save.")
            .arg(m_inputId);
    s.modelPath = QFileInfo(card->path).absoluteFilePath().toStdString();
    s.imageFile = m_inputFile.isEmpty() ? std::string() : QFileInfo(m_inputFile).absoluteFilePath().toStdString();
    // An image folder is stored as an absolute path (a session is read relative to its own folder).
    const bool folder = m_inputDataset.contains(QLatin1Char('/')) || m_inputDataset.startsWith(QLatin1Char('.'));
    s.dataset = !m_inputFile.isEmpty() ? std::string()
                : folder               ? QFileInfo(m_inputDataset).absoluteFilePath().toStdString()
                                       : m_inputDataset.toStdString();
    s.sampleIndex = m_inputFile.isEmpty() ? m_inputIndex : -1;
    s.rule = m_toolbar->rule().toStdString();
    s.seed = m_toolbar->seed();
    s.step = m_scrubber->currentStep();
    const OverlaySettings o = m_toolbar->overlays();
    s.overlays = {o.heatmap, o.chosen, o.path, o.truth, o.grid, o.heatmapOpacity};
    s.tab = m_tabs->tabText(m_tabs->currentIndex()).toLower().toStdString();
    s.attributionMap = m_attribution->method().toStdString();
    s.mapSideBySide = m_attribution->sideBySide();
    return {};
}

void AttentionPage::openSession(const Session& s) {
    {
        const QSignalBlocker block(m_toolbar);  // one trace, when the model and image are there
        m_toolbar->setRule(QString::fromStdString(s.rule));
        m_toolbar->setSeed(s.seed);
        OverlaySettings o;
        o.heatmap = s.overlays.heatmap;
        o.heatmapOpacity = s.overlays.heatmapOpacity;
        o.chosen = s.overlays.chosen;
        o.path = s.overlays.path;
        o.truth = s.overlays.truth;
        o.grid = s.overlays.grid;
        m_toolbar->setOverlays(o);
        m_canvas->setOverlays(o);
    }
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->tabText(i).toLower().toStdString() == s.tab) m_tabs->setCurrentIndex(i);
    m_attribution->setSideBySide(s.mapSideBySide);
    if (!m_attribution->setMethod(QString::fromStdString(s.attributionMap))) {
        m_attribution->setMethod(QString());
        Q_EMIT statusMessage(tr("The session's map '%1' is not one this version draws: the attention is shown alone")
                                 .arg(QString::fromStdString(s.attributionMap)));
    }
    m_inputFile = QString::fromStdString(s.imageFile);
    openAs(QString::fromStdString(s.modelPath), QString::fromStdString(s.dataset), s.sampleIndex,
           QString::fromStdString(s.rule), s.step, s.imageFile.empty() ? s.runs : 0);  // runs: when its sample arrives
}

void AttentionPage::openAs(const QString& model, const QString& dataset, qint64 index, const QString& rule, int step,
                           int runs) {
    m_input.reset();
    m_inputDataset = dataset;
    m_inputIndex = index;
    m_awaitedSample = QPair<QString, qint64>(dataset, index);  // what was asked for before is stale
    m_sessionModel = model;
    m_sessionRule = rule;
    m_pendingRuns = runs;
    m_stepArmed = false;
    m_pendingStep = step;
    m_awaitingFirst = true;
    openModel(model);
}

void AttentionPage::openAt(const QString& model, const QString& dataset, qint64 index, const QString& rule, int step) {
    m_inputFile.clear();
    openAs(model, dataset, index, rule, step, 0);
}

}  // namespace saccade::ui
