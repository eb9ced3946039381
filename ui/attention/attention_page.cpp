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
#include "models/model_input.h"
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
#include "trace/rule_kind.h"

namespace saccade::ui {

AttentionPage::AttentionPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionPage"));
    m_service = new ModelService(this);
    m_toolbar = new AttentionToolbar(this);
    m_canvas = new AttentionCanvas(this);
    m_mark = new AdequacyMark(m_canvas);
    m_canvas->setMessage(tr("Loading the model…"));
    m_scrubber = new StepScrubber(this);
    m_caption = new CaptionStrip(this);
    m_info = new StepInfoPanel(this);
    m_models = new ModelPanel(this);
    m_images = new ImagePanel(m_service, this);
    m_attribution = new AttributionView(m_service, m_canvas, this);
    connect(m_attribution, &AttributionView::statusMessage, this, &AttentionPage::statusMessage);
    buildTabs();
    buildLayout();
    addShortcuts();
    connectViews();
    connectModels();
    connectRuns();
    connectComparison();
    connectAdequacy();
}

// The left column: images, model, runs, dataset and adequacy.
void AttentionPage::buildTabs() {
    m_tabs = new QTabWidget(this);
    // Five tabs fit the left column's default width with tighter padding.
    m_tabs->setStyleSheet(QStringLiteral("QTabBar::tab { padding: 4px 4px; }"));
    m_tabs->addTab(m_images, tr("Images"));
    m_tabs->addTab(m_models, tr("Model"));
    m_runs = new CompareRunsPanel(this);
    m_tabs->addTab(m_runs, tr("Runs"));
    m_tabs->setTabToolTip(2, tr("N seeded sampled runs of this image against the deterministic rule"));
    m_comparison = new DatasetComparePanel(this);
    m_tabs->addTab(m_comparison, tr("Dataset"));
    m_tabs->setTabToolTip(3, tr("Every rule on a test split: accuracy, accuracy against K, and where sample "
                                "and the deterministic rule disagree"));
    m_adequacy = new AdequacyPanel(this);
    m_tabs->addTab(m_adequacy, tr("Adequacy"));
    m_tabs->setTabToolTip(4, tr("Which images are inadequate observations: signals from sampled runs, risk against "
                                "coverage, a threshold for a target accuracy, and the images it flags"));
}

// The tabs, the canvas between its toolbar and its step controls, and the step panel, side by
// side; the error banner and the wait bar float over the canvas.
void AttentionPage::buildLayout() {
    auto* centre = new QWidget(this);
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    // A model that failed to open stays reported here, above whatever is still shown, until the
    // next model is requested or the banner is clicked away.
    // It floats over the canvas's top (as the wait bar does): showing it shifts no control.
    m_banner = new QLabel(m_canvas);
    m_banner->setObjectName(QStringLiteral("modelErrorBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setStyleSheet(QStringLiteral("QLabel { background: #fbe3e3; color: #8a1010; border: 1px solid #d88; "
                                           "padding: 6px; }"));
    m_banner->hide();
    connect(m_banner, &QLabel::linkActivated, this, [this] {
        m_banner->hide();
        // What the banner said is not left behind on an empty canvas.
        if (!m_trace) m_canvas->setMessage(tr("No model shown: pick one on the Model tab, or open one (Ctrl+O)."));
    });
    m_canvas->installEventFilter(this);
    buildWaitBar();
    centreLayout->addWidget(m_toolbar);
    centreLayout->addWidget(m_attribution->row());
    // The attention and, when a map is chosen, the map beside it (or alone).
    auto* maps = new QHBoxLayout;
    maps->setSpacing(4);
    maps->addWidget(m_canvas, 1);
    maps->addWidget(m_attribution->canvas(), 1);
    centreLayout->addLayout(maps, 1);
    centreLayout->addWidget(m_caption);
    centreLayout->addWidget(m_scrubber);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->addWidget(m_tabs);
    m_splitter->addWidget(centre);
    m_splitter->addWidget(m_info);
    // A larger window gives most of its room to the canvas and some to both side columns.
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 4);
    m_splitter->setStretchFactor(2, 1);
    // The left column is wide enough for every tab (charts included) from the start: opening a
    // tab never moves the canvas.
    m_splitter->setSizes({330, 570, 280});
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);
}

void AttentionPage::addShortcuts() {
    // Arrow keys step, Home and End go to the ends, Space plays, anywhere on the page (text fields
    // keep their own keys).
    auto shortcut = [this](QKeySequence keys, auto slot) {
        auto* s = new QShortcut(keys, this, slot);
        s->setContext(Qt::WidgetWithChildrenShortcut);
    };
    shortcut(QKeySequence(Qt::Key_Left), [this] { m_scrubber->step(-1); });
    shortcut(QKeySequence(Qt::Key_Right), [this] { m_scrubber->step(+1); });
    shortcut(QKeySequence(Qt::Key_Space), [this] { m_scrubber->togglePlay(); });
    shortcut(QKeySequence(Qt::Key_Home), [this] { m_scrubber->setCurrentStep(0); });
    shortcut(QKeySequence(Qt::Key_End), [this] { m_scrubber->setCurrentStep(std::max(0, m_scrubber->stepCount() - 1)); });
}

// The toolbar, the canvas, the scrubber and the caption strip follow one another.
void AttentionPage::connectViews() {
    connect(m_scrubber, &StepScrubber::stepChanged, this, [this](int step) {
        m_canvas->setStep(step);
        m_attribution->attentionStepChanged();
        m_info->setStep(step);
        m_caption->setStep(step);
    });
    connect(m_caption, &CaptionStrip::stepRequested, m_scrubber, &StepScrubber::setCurrentStep);
    connect(m_caption, &CaptionStrip::ruleRequested, this, &AttentionPage::setRule);
    connect(m_toolbar, &AttentionToolbar::runChanged, this, &AttentionPage::requestTrace);
    connect(m_toolbar, &AttentionToolbar::overlaysChanged, m_canvas, &AttentionCanvas::setOverlays);
    connect(m_toolbar, &AttentionToolbar::fitRequested, m_canvas, &AttentionCanvas::fitToWindow);
    connect(m_toolbar, &AttentionToolbar::actualSizeRequested, m_canvas, &AttentionCanvas::actualSize);
    connect(m_toolbar, &AttentionToolbar::exportRequested, this,
            [this](AttentionToolbar::Export what) { exportAs(int(what)); });
    connect(m_canvas, &AttentionCanvas::zoomChanged, m_toolbar, &AttentionToolbar::setZoomText);
}

// Models and images asked for, and what the service answers.
void AttentionPage::connectModels() {
    connect(m_models, &ModelPanel::modelRequested, this, [this](const QString& path, const QString& device) {
        Q_EMIT statusMessage(tr("Loading %1 on %2…").arg(QFileInfo(path).fileName(), device));
        m_banner->hide();
        loadModel(path, device);
    });
    connect(m_images, &ImagePanel::sampleChosen, this, &AttentionPage::openSample);
    connect(m_images, &ImagePanel::fileChosen, this, &AttentionPage::openImageFile);
    connect(m_service, &ModelService::modelLoaded, this, &AttentionPage::onModelLoaded);
    connect(m_service, &ModelService::modelFailed, this, [this](const QString& message) {
        m_sessionModel.clear();  // a session whose model fails to load opens nothing more
        m_pendingStep.reset();
        m_models->showError(message);
        const auto& card = m_service->card();
        // Said once, in the banner (and the status bar); the canvas keeps the model still shown.
        showBanner(tr("Model not loaded"),
                   message + (card ? tr("\nStill showing %1.").arg(QFileInfo(card->path).fileName()) : QString()));
        m_awaitingFirst = false;
        if (!card) m_canvas->setMessage(tr("No model shown."));
        Q_EMIT statusMessage(tr("Model not loaded: %1").arg(message));
    });
    connect(m_service, &ModelService::companionReady, this, [this](const Trace& t) {
        m_caption->setCompanion(t.rule.empty() ? std::nullopt : std::optional<Trace>(t));
    });
    connect(m_service, &ModelService::traceReady, this, &AttentionPage::onTrace);
    connect(m_service, &ModelService::traceFailed, this, &AttentionPage::showError);
    connect(m_service, &ModelService::sampleReady, this,
            [this](const QString& dataset, qint64 index, const Sample& s) {
                if (m_awaitedSample != QPair<QString, qint64>(dataset, index)) return;  // superseded
                m_inputDataset = dataset;
                m_inputIndex = index;
                m_inputFile.clear();
                m_images->markCurrent(dataset, index);
                setInput(s.image, QStringLiteral("%1:test:%2").arg(dataset).arg(index), sampleGroundTruth(s));
                if (m_pendingRuns > 0) {  // opened from the Adequacy tab (the runs it measured) or a session
                    m_runs->setRuns(std::exchange(m_pendingRuns, 0));
                    m_runs->startRuns();
                }
                updateAdequacyMark();
            });
    connect(m_service, &ModelService::samplesFailed, this, &AttentionPage::showError);
}

void AttentionPage::connectRuns() {
    connect(m_runs, &CompareRunsPanel::runRequested, this, [this](int runs) {
        if (!m_input || !m_service->hasModel()) return m_runs->showError(tr("Open a model and an image first."));
        RunsRequest request;
        request.image = *m_input;
        request.runs = runs;
        const bool runLoaded = m_runs->shownSet() && m_loadedRunSeed && *m_loadedRunSeed == m_toolbar->seed();
        request.seed = runLoaded ? m_runs->shownSet()->seed : m_toolbar->seed();
        request.imageId = m_inputId.toStdString();
        request.truth = m_truth;
        m_service->requestRuns(request);
    });
    connect(m_runs, &CompareRunsPanel::cancelRequested, m_service, &ModelService::cancelRuns);
    connect(m_runs, &CompareRunsPanel::runChosen, this, [this](quint64 seed) {
        {
            const QSignalBlocker block(m_toolbar);  // one trace for rule and seed together
            m_toolbar->setRule(QStringLiteral("sample"));
            m_toolbar->setSeed(seed);
        }
        m_loadedRunSeed = seed;
        requestTrace();
    });
    connect(m_service, &ModelService::runsProgress, m_runs, &CompareRunsPanel::setProgress);
    connect(m_service, &ModelService::runsFailed, m_runs, &CompareRunsPanel::showError);
    auto showRuns = [this](const RunSet& set, const RunStats& stats, int total) {
        m_runs->showResult(set, stats, total);
        m_canvas->setVisits(stats.visits, stats.visitRows, stats.visitCols);
    };
    connect(m_service, &ModelService::runsPartial, this, showRuns);
    connect(m_service, &ModelService::runsReady, this, [this, showRuns](const RunSet& set, const RunStats& stats) {
        showRuns(set, stats, 0);
        if (QString::fromStdString(set.imageId) == m_inputId) {
            m_runAdequacy = RunAdequacy{adequacyOf(set, stats), stats.runs, set.seed};
            updateAdequacyMark();
        }
    });
}

void AttentionPage::connectAdequacy() {
    connect(m_adequacy, &AdequacyPanel::measureRequested, this, [this](const QString& dataset, AdequacyOptions options) {
        if (!m_service->hasModel()) return m_adequacy->showError(tr("Open a model first."));
        options.seed = m_toolbar->seed();
        m_service->requestAdequacy(dataset, options);
    });
    connect(m_adequacy, &AdequacyPanel::cancelRequested, m_service, &ModelService::cancelAdequacy);
    connect(m_adequacy, &AdequacyPanel::imageChosen, this, [this](const QString& dataset, qint64 index, int runs, quint64 seed) {
        {
            const QSignalBlocker block(m_toolbar);  // the seed the runs were measured with
            m_toolbar->setSeed(seed);
        }
        m_pendingRuns = runs;
        openSample(dataset, index);
    });
    connect(m_adequacy, &AdequacyPanel::thresholdChanged, this, &AttentionPage::updateAdequacyMark);
    connect(m_service, &ModelService::adequacyProgress, m_adequacy, &AdequacyPanel::setProgress);
    connect(m_service, &ModelService::adequacyReady, m_adequacy, &AdequacyPanel::showReport);
    connect(m_service, &ModelService::adequacyFailed, m_adequacy, &AdequacyPanel::showError);
}

void AttentionPage::updateAdequacyMark() {
    const auto signal = m_adequacy->signal();
    const auto threshold = m_adequacy->threshold();
    // The value the Adequacy tab listed for this test image, else the Runs tab's set of it.
    if (const auto listed = m_adequacy->valueOf(m_inputDataset, m_inputIndex)) {
        const auto* r = m_adequacy->report();
        return m_mark->showFor(signal, listed, threshold, m_adequacy->targetUnreachable(), m_adequacy->targetAccuracy(),
                               tr("measured on the Adequacy tab: %1 runs, seeds %2..%3")
                                   .arg(r->runs).arg(r->seed).arg(r->seed + quint64(r->runs) - 1));
    }
    if (m_runAdequacy) {
        const double v = m_runAdequacy->values[signal];
        return m_mark->showFor(signal, std::isnan(v) ? std::nullopt : std::optional<double>(v), threshold,
                               m_adequacy->targetUnreachable(), m_adequacy->targetAccuracy(),
                               tr("from the Runs tab: %1 runs, seeds %2..%3")
                                   .arg(m_runAdequacy->runs).arg(m_runAdequacy->seed)
                                   .arg(m_runAdequacy->seed + quint64(m_runAdequacy->runs) - 1));
    }
    m_mark->hide();
}

void AttentionPage::connectComparison() {
    connect(m_comparison, &DatasetComparePanel::compareRequested, this, [this](const QString& dataset, qint64 limit) {
        if (!m_service->hasModel()) return m_comparison->showError(tr("Open a model first."));
        m_service->requestComparison(dataset, limit, m_toolbar->seed());
    });
    connect(m_comparison, &DatasetComparePanel::cancelRequested, m_service, &ModelService::cancelComparison);
    // A listed case opens under sample with its evaluation seed: the answer the list shows.
    connect(m_comparison, &DatasetComparePanel::imageChosen, this, [this](const QString& dataset, qint64 index, quint64 seed) {
        {
            const QSignalBlocker block(m_toolbar);
            m_toolbar->setRule(QStringLiteral("sample"));
            m_toolbar->setSeed(seed);
        }
        openSample(dataset, index);
    });
    connect(m_service, &ModelService::comparisonProgress, m_comparison, &DatasetComparePanel::setProgress);
    connect(m_service, &ModelService::comparisonReady, m_comparison, &DatasetComparePanel::showComparison);
    connect(m_service, &ModelService::ruleComparisonReady, m_comparison, &DatasetComparePanel::showRuleComparison);
    connect(m_service, &ModelService::comparisonFailed, m_comparison, &DatasetComparePanel::showError);
}

AttentionPage::~AttentionPage() = default;

void AttentionPage::openModel(const QString& path) {
    Q_EMIT statusMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    m_banner->hide();
    loadModel(path, m_models->device());
}

void AttentionPage::loadModel(const QString& path, const QString& device) {
    if (fileReadsText(path.toStdString())) {  // text in, text out: the Sequences page shows it
        Q_EMIT sequenceModelRequested(path);
        return;
    }
    // The service stops measurements of the old model; their panels say so (else they would wait).
    if (m_comparison->isRunning()) m_comparison->showError(tr("Stopped: another model is loading."));
    if (m_adequacy->isRunning()) m_adequacy->showError(tr("Stopped: another model is loading."));
    // The Model tab's preprocessing applies to the model it was set on.
    m_service->loadModel(path, device, m_models->inputOverrides(path));
}

void AttentionPage::forgetRuns() {
    m_service->cancelRuns();
    m_runAdequacy.reset();
    m_loadedRunSeed.reset();
    m_runs->clear(tr("Run N seeded samples of this image against the deterministic rule."));
    m_canvas->clearVisits();
}

void AttentionPage::onModelLoaded(const ModelCard& card) {
    forgetRuns();
    m_attribution->clear();
    m_attribution->setAvailableMaps(card.maps, traitsOf(card.outputKind).labelsAreClasses);
    m_models->showCard(card);
    {
        const QSignalBlocker block(m_toolbar);  // the trace below uses the new rule
        m_toolbar->setAvailableRules(card.rules, card.trainingRule, card.ruleRanges);
        // Another model opens under its own training rule (a soft captioner under argmax writes
        // captions it never learnt to); the same model reopened (another device) keeps the rule.
        const bool another = QFileInfo(card.path) != QFileInfo(m_shownModel);
        if (another) m_toolbar->setRule(card.trainingRule);
        else if (!m_restoredRule.isEmpty()) m_toolbar->setRule(m_restoredRule);  // the saved model's saved rule
        m_restoredRule.clear();
        m_shownModel = card.path;
        if (another && m_sessionModel.isEmpty()) {  // its first trace starts at step 1 (a session names its own)
            m_pendingStep = 0;
            m_stepArmed = true;
        }
    }
    m_images->setModelShape(card.imageSize, card.channels, card.dataset);
    m_images->setDeterministicRuleName(card.deterministicRule);
    m_service->cancelComparison();
    m_comparison->setModel(card.classNames, m_images->datasets(), card.dataset, card.deterministicRule);
    m_service->cancelAdequacy();
    m_adequacy->setModel(card.classNames, m_images->datasets(), card.dataset);
    Q_EMIT modelOpened(card.path, card.dataset, card.rules, card.deterministicRule, card.outputKind, card.maps);
    Q_EMIT statusMessage(tr("Loaded %1 on %2").arg(QFileInfo(card.path).fileName(), card.device));
    // A session names its image; else keep the current input when it fits the new model; else
    // the saved or the first sample.
    if (!m_sessionModel.isEmpty()) {
        // Another model (one asked for before the session) draws nothing: the session's follows.
        if (QFileInfo(card.path) != QFileInfo(m_sessionModel)) return;
        m_sessionModel.clear();
        m_stepArmed = true;
        {
            const QSignalBlocker block(m_toolbar);
            if (!m_sessionRule.isEmpty() && !m_toolbar->setRule(m_sessionRule))
                showBanner(tr("Session rule not applied"),
                           tr("the session's rule '%1' is not one this model offers, or its value is out of range; "
                              "showing %2").arg(m_sessionRule, m_toolbar->rule()));
        }
        if (!m_inputFile.isEmpty())
            openImageFile(m_inputFile);
        else
            openSample(m_inputDataset, m_inputIndex);
    } else if (m_input && m_input->width == card.imageSize && m_input->channels == card.channels) {
        // The image stays; its true class was the old model's (another class list: no longer known).
        if (m_truth && card.classNames != m_shownClasses) m_truth->label = -1;
        requestTrace();
    } else if (!m_inputFile.isEmpty() && QFileInfo::exists(m_inputFile)) {
        openImageFile(m_inputFile);  // the user's photo, fitted anew from its file (gone: a sample below)
    } else if (m_images->dataset().isEmpty() && refitInput(card)) {
        Q_EMIT statusMessage(tr("No dataset has %1x%1 images: the image shown before, fitted to the model (%2)")
                                 .arg(card.imageSize).arg(QString::fromStdString(describeFit(card.fit))));
    } else if (m_images->dataset().isEmpty()) {
        // A model of a size no built-in dataset has (a 224-px ViT): no error, what to do next.
        m_input.reset();
        m_trace.reset();
        m_awaitingFirst = false;
        m_canvas->clearTrace();
        m_info->clear(tr("No image of this model's size yet."));
        m_canvas->setMessage(tr("%1 reads %2x%2 images, a size no built-in dataset has: open an image file "
                                "(Ctrl+Shift+O) or an image folder on the Images tab.")
                                 .arg(QFileInfo(card.path).fileName()).arg(card.imageSize));
    } else {
        const bool savedFits = !m_inputDataset.isEmpty() && m_images->dataset() == m_inputDataset;
        openSample(savedFits ? m_inputDataset : m_images->dataset(), savedFits ? std::max<qint64>(0, m_inputIndex) : 0);
    }
    m_shownClasses = card.classNames;
}

bool AttentionPage::refitInput(const ModelCard& card) {
    if (!m_input) return false;
    // Its ground truth's boxes move with the pixels; its class belonged to the old model's list.
    auto fitted = fitToInput(*m_input, card.imageSize, card.channels, card.fit, m_truth);
    if (!fitted) return false;
    FittedImage input = std::move(fitted).value();
    if (input.truth && card.classNames != m_shownClasses) input.truth->label = -1;
    setInput(input.image, m_inputId, input.truth);
    return true;
}

void AttentionPage::openSample(const QString& dataset, qint64 index) {
    if (dataset.isEmpty()) return showError(tr("No dataset has images of this model's size; open an image file."));
    m_awaitedSample = QPair<QString, qint64>(dataset, index);
    m_service->requestSample(dataset, index);
    if (QFileInfo(dataset).isDir()) Q_EMIT folderInUse(dataset);
}

void AttentionPage::openImageFile(const QString& path) {
    const auto& card = m_service->card();
    if (!card) return showError(tr("Load a model before opening an image."));
    ImageLoadOptions options;
    options.channels = card->channels;
    auto loaded = loadImage(path.toStdString(), options);
    if (!loaded) {
        m_inputFile.clear();
        return showError(QString::fromStdString(loaded.error()));
    }
    // Fitted as the CLI fits it (core's fitToInput), with the same errors.
    auto fitted = fitToInput(*loaded, card->imageSize, card->channels, card->fit);
    if (!fitted) {
        m_inputFile.clear();
        return showError(QFileInfo(path).fileName() + QStringLiteral(": ") + QString::fromStdString(fitted.error()));
    }
    const Image image = std::move(fitted->image);
    QString note;
    if (loaded->width != image.width || loaded->height != image.height)
        note = tr(" (%1x%2, fitted: %3)").arg(loaded->width).arg(loaded->height).arg(QString::fromStdString(describeFit(card->fit)));
    m_inputFile = path;
    m_inputDataset.clear();
    m_inputIndex = -1;
    m_awaitedSample.reset();
    m_images->addRecentFile(path);
    m_images->markCurrent(QString(), -1);
    setInput(image, path, std::nullopt);
    updateAdequacyMark();
    Q_EMIT statusMessage(tr("Opened %1%2").arg(QFileInfo(path).fileName(), note));
}

void AttentionPage::openProbe(const Image& image, const QString& id, const GroundTruth& truth, int runs,
                              quint64 seed) {
    {
        const QSignalBlocker block(m_toolbar);  // the trace below and the runs use the sweep's seed
        m_toolbar->setSeed(seed);
    }
    m_inputDataset.clear();
    m_inputIndex = -1;
    m_inputFile.clear();
    m_awaitedSample.reset();
    setInput(image, id, truth);
    updateAdequacyMark();
    m_tabs->setCurrentWidget(m_runs);
    m_runs->setRuns(runs);
    m_runs->startRuns();
}

void AttentionPage::setInput(const Image& image, const QString& id, const std::optional<GroundTruth>& truth) {
    if (id != m_inputId) forgetRuns();
    m_input = image;
    m_inputId = id;
    m_truth = truth;
    requestTrace();
}

bool AttentionPage::setRule(const QString& rule) { return m_toolbar->setRule(rule); }

void AttentionPage::requestTrace() {
    if (!m_input || !m_service->hasModel()) return;
    TraceRequest request;
    request.image = *m_input;
    request.rule = m_toolbar->rule().toStdString();
    request.seed = m_toolbar->seed();
    request.imageId = m_inputId.toStdString();
    request.truth = m_truth;
    // A captioner's beam caption beside its greedy one, and the greedy one beside a beam.
    // (Only where the model has beam search: an imported captioner has its own decoding alone.)
    if (const auto& card = m_service->card();
        card && traitsOf(card->outputKind).wordSteps &&
        std::any_of(card->rules.begin(), card->rules.end(), [](const QString& r) { return isRule(r.toStdString(), RuleKind::Beam); }))
        request.companionRule = !isRule(request.rule, RuleKind::Beam) ? "beam:3"
                                : ruleName(card->trainedMode == TrainingMode::Soft ? RuleKind::Soft : RuleKind::Argmax);
    m_service->requestTrace(request);
}

void AttentionPage::onTrace(const Trace& trace, const Image& image, double ms) {
    m_trace = trace;
    m_traceImage = image;
    m_awaitingFirst = false;
    m_canvas->setMessage({});
    m_canvas->setImage(toQImage(image));
    m_canvas->setTrace(trace);
    m_scrubber->setStepCount(int(trace.steps.size()));
    if (m_pendingStep && m_stepArmed) {  // a session's step, once its trace is here
        m_stepArmed = false;
        m_scrubber->setCurrentStep(std::clamp(*m_pendingStep, 0, std::max(0, int(trace.steps.size()) - 1)));
        m_pendingStep.reset();
    }
    m_canvas->setStep(m_scrubber->currentStep());
    const auto& first = trace.steps.empty() ? std::optional<GridDistribution>() : trace.steps.front().grid;
    const bool wordSteps = std::any_of(trace.steps.begin(), trace.steps.end(), [](const TraceStep& s) { return !s.token.empty(); });
    m_attribution->traceShown(image, m_truth, QString::fromStdString(trace.rule),
                              first && first->rows == first->cols ? first->rows : 0, wordSteps);
    m_info->setTrace(trace, ms);
    m_info->setStep(m_scrubber->currentStep());
    m_caption->setTrace(trace);
    m_caption->markCompanionStale();  // greyed, keeping its room, until this trace's companion arrives
    m_caption->setStep(m_scrubber->currentStep());
    m_toolbar->setExportEnabled(true);
    Q_EMIT statusMessage(tr("%1 under %2: %3 (%4 ms)")
                             .arg(QString::fromStdString(trace.imageId), QString::fromStdString(trace.rule),
                                  QString::fromStdString(trace.output.text))
                             .arg(ms, 0, 'f', 1));
}

void AttentionPage::openModelDialog() { m_models->openDialog(); }

void AttentionPage::openImageDialog() { m_images->openDialog(); }

void AttentionPage::setLineScale(double scale) { m_canvas->setLineScale(scale); }

QString AttentionPage::comparisonDataset() const { return m_comparison->dataset(); }

}  // namespace saccade::ui
