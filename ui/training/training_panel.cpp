#include "training/training_panel.h"
#include "io/checkpoint_staging.h"
#include "file_dialogs.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <cmath>

#include "charts/training_chart.h"
#include "data/dataset.h"
#include "train/caption_trainer.h"
#include "train/seq_trainer.h"
#include "data/seq_task.h"
#include "train/ram_trainer.h"
#include "train/vit_trainer.h"
#include "training/training_job.h"

namespace saccade::ui {

namespace {

QString clock(double seconds) {
    const int s = int(std::lround(std::max(0.0, seconds)));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString defaultOut(const QString& family, const QString& mode, const QString& dataset) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(dir.isEmpty() ? QDir::homePath() : dir)
        .filePath(family == QLatin1String("ram") || family == QLatin1String("vit")
                      ? QStringLiteral("models/%1-%2.pt").arg(family, dataset)
                      : QStringLiteral("models/%1-%2-%3.pt").arg(family, mode, dataset));
}

// The datasets a family trains on: captioned scenes for the captioner, greyscale sets otherwise
// (the patch model also needs a side divisible by 4).
QStringList familyDatasets(const QString& family) {
    QStringList datasets;
    if (family == QLatin1String("seq")) {  // sequence models train on tasks, not image sets
        for (const auto& name : seqTaskNames()) datasets << QString::fromStdString(name);
        return datasets;
    }
    for (const auto& [name, description] : datasetNames()) {
        auto shape = datasetShape(name);
        if (!shape) continue;
        const bool scenes = QString::fromStdString(name).startsWith(QLatin1String("scenes"));
        if (family == QLatin1String("caption") ? scenes
                                               : !scenes && shape->channels == 1 &&
                                                     (family != QLatin1String("patch") || shape->width % 4 == 0))
            datasets << QString::fromStdString(name);
    }
    return datasets;
}

/// A ViT patch side that divides the image side and fits the form (at most kMaxPatch): the current
/// one if it does, else 10 (6 x 6 patches on 60 px), else the divisor nearest 8.
constexpr int kMaxPatch = 30;
int fittingPatch(int side, int current) {
    if (current > 0 && current <= std::min(side, kMaxPatch) && side % current == 0) return current;
    if (side % 10 == 0) return 10;
    int best = 1;
    for (int d = 2; d <= std::min(side, kMaxPatch); ++d)
        if (side % d == 0 && std::abs(d - 8) < std::abs(best - 8)) best = d;
    return best;
}

/// The form's budget, schedule, seed and output, which every family takes as they are.
void takeFormBudget(const TrainCommonOptions& form, TrainCommonOptions& o) {
    o.batch = form.batch;
    o.minutes = form.minutes;
    o.iterations = form.iterations;
    o.lr = form.lr;
    o.seed = form.seed;
    o.out = form.out;
}

QComboBox* comboOf(QWidget* parent, const QStringList& items) {
    auto* c = new QComboBox(parent);
    for (const QString& item : items) c->addItem(item, item);
    return c;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("trainingPanel"));
    m_job = new TrainingJob(this);
    m_family = new QComboBox(this);
    m_family->setObjectName(QStringLiteral("familyCombo"));
    m_family->addItem(tr("patch-attention classifier"), QStringLiteral("patch"));
    m_family->addItem(tr("recurrent attention model"), QStringLiteral("ram"));
    m_family->addItem(tr("Show-Attend-Tell captioner"), QStringLiteral("caption"));
    m_family->addItem(tr("sequence model (alignment lab)"), QStringLiteral("seq"));
    m_family->addItem(tr("Vision Transformer (self-attention)"), QStringLiteral("vit"));
    const QStringList datasets = familyDatasets(QStringLiteral("patch"));
    m_dataset = comboOf(this, datasets);
    m_dataset->setObjectName(QStringLiteral("datasetCombo"));
    m_dataset->setCurrentIndex(std::max(0, int(datasets.indexOf(QStringLiteral("translated-fashion60")))));
    m_mode = comboOf(this, {QStringLiteral("soft"), QStringLiteral("hard"), QStringLiteral("gumbel")});
    m_mode->setToolTip(tr("soft: backprop through the expected context; hard: REINFORCE with a "
                          "baseline; gumbel: straight-through Gumbel-softmax"));
    m_scorer = comboOf(this, {QStringLiteral("additive"), QStringLiteral("general"), QStringLiteral("dot"),
                              QStringLiteral("scaled-dot")});
    m_variant = comboOf(this, {QStringLiteral("dense"), QStringLiteral("select")});
    m_variant->setToolTip(tr("select: a cheap pass scores the cells and the patch network runs only "
                             "on the chosen one"));
    auto spin = [this](int lo, int hi, int value) {
        auto* s = new QSpinBox(this);
        s->setRange(lo, hi);
        s->setValue(value);
        return s;
    };
    const PatchTrainOptions defaults;
    m_steps = spin(1, 16, defaults.model.steps);
    m_grid = spin(2, 30, defaults.model.grid);
    m_batch = spin(1, 1024, defaults.batch);
    m_minutes = new QDoubleSpinBox(this);
    m_minutes->setRange(0, 600);
    m_minutes->setValue(5);
    m_minutes->setSuffix(tr(" min"));
    m_minutes->setToolTip(tr("Time budget: the iteration count is fixed after a short warm-up"));
    m_iterations = spin(0, 10'000'000, 0);
    m_iterations->setSpecialValueText(tr("from the time budget"));
    m_lr = new QDoubleSpinBox(this);
    m_lr->setDecimals(5);
    m_lr->setRange(1e-5, 1);
    m_lr->setSingleStep(1e-4);
    m_lr->setValue(defaults.lr);
    m_seed = spin(0, 2147483647, int(defaults.seed));
    m_sharpen = new QDoubleSpinBox(this);
    m_sharpen->setObjectName(QStringLiteral("sharpenSpin"));
    m_sharpen->setDecimals(3);
    m_sharpen->setRange(0, 100);
    m_sharpen->setSingleStep(0.01);
    m_sharpen->setValue(CaptionTrainOptions{}.attentionEntropy);
    m_sharpen->setSpecialValueText(tr("off (the paper's soft attention)"));
    m_sharpen->setToolTip(tr("Soft captioner: weight of each word's attention entropy in the loss "
                             "(--attention-entropy, with --dsr-lambda 0). 0.02 puts two thirds of a word's "
                             "attention on the object it names"));
    m_out = new QLineEdit(this);
    m_out->setObjectName(QStringLiteral("outEdit"));
    m_browse = new QPushButton(tr("…"), this);
    m_browse->setFixedWidth(32);
    m_browse->setToolTip(tr("Choose the checkpoint file"));
    m_train = new QPushButton(tr("Train"), this);
    m_train->setObjectName(QStringLiteral("trainButton"));
    m_stop = new QPushButton(tr("Stop and save"), this);
    m_stop->setObjectName(QStringLiteral("stopButton"));
    m_discard = new QPushButton(tr("Stop, discard"), this);
    m_discard->setObjectName(QStringLiteral("discardButton"));
    m_discard->setToolTip(tr("Stop this run and keep nothing of it: a model saved at the same path before stays"));
    m_openModel = new QPushButton(tr("Open in Attention"), this);
    m_openModel->setObjectName(QStringLiteral("openModelButton"));
    m_progress = new QProgressBar(this);
    m_progress->setFormat(QStringLiteral("%p%"));
    m_status = new QLabel(tr("Choose the options and press Train."), this);
    m_status->setWordWrap(true);
    m_chart = new TrainingChart(this);

    auto* form = new QFormLayout;
    form->addRow(tr("Model:"), m_family);
    form->addRow(tr("Dataset:"), m_dataset);
    form->addRow(tr("Mode:"), m_mode);
    form->addRow(tr("Scorer:"), m_scorer);
    form->addRow(tr("Variant:"), m_variant);
    form->addRow(tr("Steps T:"), m_steps);
    form->addRow(tr("Grid g:"), m_grid);
    form->addRow(tr("Batch:"), m_batch);
    form->addRow(tr("Budget:"), m_minutes);
    form->addRow(tr("Iterations:"), m_iterations);
    form->addRow(tr("Learning rate:"), m_lr);
    form->addRow(tr("Sharpen:"), m_sharpen);
    form->addRow(tr("Seed:"), m_seed);
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(m_out, 1);
    outRow->addWidget(m_browse);
    form->addRow(tr("Save to:"), outRow);
    auto* buttons = new QGridLayout;
    buttons->addWidget(m_train, 0, 0);
    buttons->addWidget(m_openModel, 0, 1);
    buttons->addWidget(m_stop, 1, 0);
    buttons->addWidget(m_discard, 1, 1);
    auto* optionsBox = new QGroupBox(tr("Train a model"), this);
    auto* optionsLayout = new QVBoxLayout(optionsBox);
    optionsLayout->addLayout(form);
    optionsLayout->addLayout(buttons);
    optionsLayout->addStretch(1);
    optionsBox->setMaximumWidth(380);
    auto* right = new QVBoxLayout;
    right->addWidget(m_chart, 1);
    right->addWidget(m_progress);
    right->addWidget(m_status);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(optionsBox);
    layout->addLayout(right, 1);

    m_stepsLabel = form->labelForField(m_steps);
    m_gridLabel = form->labelForField(m_grid);
    auto updateOut = [this] {
        if (!isRunning())
            m_out->setText(defaultOut(family(), m_mode->currentData().toString(), m_dataset->currentData().toString()));
    };
    connect(m_family, &QComboBox::currentIndexChanged, this, [this, updateOut] {
        applyFamily();
        updateOut();
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, updateOut);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { enableFamilyOptions(); });
    connect(m_dataset, &QComboBox::currentIndexChanged, this, updateOut);
    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {  // the ViT's patch must divide the side
        if (family() != QLatin1String("vit")) return;
        if (auto shape = datasetShape(m_dataset->currentData().toString().toStdString()))
            m_grid->setValue(fittingPatch(shape->width, m_grid->value()));
    });
    updateOut();
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString path = saveFileDialog(this, tr("Save the model as"), m_out->text(), tr("Checkpoints (*.pt)"));
        if (!path.isEmpty()) m_out->setText(path);
    });
    connect(m_train, &QPushButton::clicked, this, &TrainingPanel::startTraining);
    connect(m_stop, &QPushButton::clicked, this, &TrainingPanel::stopTraining);
    connect(m_discard, &QPushButton::clicked, this, [this] {
        if (!isRunning()) return;
        m_discarding = true;
        m_job->cancel();
        m_stop->setEnabled(false);
        m_discard->setEnabled(false);
        m_status->setText(tr("Stopping after this iteration; nothing of this run will be kept…"));
    });
    connect(m_openModel, &QPushButton::clicked, this, [this] { Q_EMIT openModelRequested(m_lastCheckpoint); });
    connect(m_job, &TrainingJob::progress, this, &TrainingPanel::onProgress);
    connect(m_job, &TrainingJob::finished, this, [this](const TrainSummary& s) {
        setRunning(false);
        m_status->setText(settleStagedRun(s) + (m_lastEval.isEmpty() ? QString() : QLatin1Char('\n') + m_lastEval));
        Q_EMIT statusMessage(m_status->text());
        Q_EMIT jobEnded();
    });
    connect(m_job, &TrainingJob::failed, this, [this](const QString& error) {
        setRunning(false);
        discardCheckpoint(m_stagedOut.toStdString());
        m_status->setText(tr("Training failed: %1").arg(error));
        Q_EMIT statusMessage(m_status->text());
        Q_EMIT jobEnded();
    });
    setRunning(false);
    m_openModel->setEnabled(false);
}

TrainingPanel::~TrainingPanel() {
    // Closing while a run trains (or before its end was handled) stops it and keeps what it learnt,
    // as "Stop and save" does; a run being discarded goes.
    if (m_stagedOut.isEmpty()) return;
    const bool discard = m_discarding;
    delete m_job;  // stops a running job and waits for it to save
    m_job = nullptr;
    if (!QFileInfo::exists(m_stagedOut)) return;  // already kept or discarded
    if (discard)
        discardCheckpoint(m_stagedOut.toStdString());
    else
        (void)promoteCheckpoint(m_stagedOut.toStdString(), m_finalOut.toStdString());
}

QString TrainingPanel::settleStagedRun(const TrainSummary& s) {
    if (m_discarding) {
        discardCheckpoint(m_stagedOut.toStdString());
        return tr("Stopped after %1 iterations and discarded the run: nothing was saved to %2.").arg(s.iterations).arg(m_finalOut);
    }
    if (auto kept = promoteCheckpoint(m_stagedOut.toStdString(), m_finalOut.toStdString()); !kept)
        return tr("Training ended, but the model could not be saved: %1").arg(QString::fromStdString(kept.error()));
    m_lastCheckpoint = m_finalOut;
    m_openModel->setEnabled(true);
    return (s.cancelled ? tr("Stopped after %1 iterations and saved %2 (%3 images/s).")
                        : tr("Finished %1 iterations and saved %2 (%3 images/s)."))
        .arg(s.iterations).arg(m_lastCheckpoint).arg(s.imagesPerSecond, 0, 'f', 0);
}

QString TrainingPanel::family() const { return m_family->currentData().toString(); }

bool TrainingPanel::setFamily(const QString& family) {
    const int i = m_family->findData(family);
    if (i < 0) return false;
    m_family->setCurrentIndex(i);
    return true;
}

void TrainingPanel::applyFamily() {
    const QString f = family();
    const QString previous = m_dataset->currentData().toString();
    {
        const QSignalBlocker block(m_dataset);
        m_dataset->clear();
        for (const QString& d : familyDatasets(f)) m_dataset->addItem(d, d);
        const int keep = m_dataset->findData(previous);
        const int preferred = m_dataset->findData(f == QLatin1String("caption") ? QStringLiteral("scenes64")
                                                  : f == QLatin1String("seq")   ? QStringLiteral("dates")
                                                                                : QStringLiteral("translated-fashion60"));
        m_dataset->setCurrentIndex(keep >= 0 ? keep : std::max(0, preferred));
    }
    {
        const QSignalBlocker block(m_mode);
        m_mode->clear();
        const QStringList modes = f == QLatin1String("ram")   ? QStringList{QStringLiteral("reinforce")}
                                  : f == QLatin1String("vit") ? QStringList{QStringLiteral("self-attention")}
                                  : f == QLatin1String("seq") ? QStringList{QStringLiteral("soft"), QStringLiteral("hard"),
                                                                            QStringLiteral("transformer")}
                                                              : QStringList{QStringLiteral("soft"), QStringLiteral("hard"),
                                                                            QStringLiteral("gumbel")};
        for (const QString& m : modes) m_mode->addItem(m, m);
    }
    const bool ram = f == QLatin1String("ram"), seq = f == QLatin1String("seq"), vit = f == QLatin1String("vit"),
               caption = f == QLatin1String("caption");
    m_openModel->setText(seq ? tr("Open in Sequences") : tr("Open in Attention"));
    enableFamilyOptions();
    // The ViT's layers are its steps on the canvas, and its patch side takes the grid's place.
    if (auto* label = qobject_cast<QLabel*>(m_stepsLabel))
        label->setText(vit ? tr("Layers:") : ram ? tr("Glimpses:") : tr("Steps T:"));
    if (auto* label = qobject_cast<QLabel*>(m_gridLabel)) label->setText(vit ? tr("Patch:") : tr("Grid g:"));
    m_steps->setToolTip(ram       ? tr("Glimpses per episode")
                        : caption ? tr("One step per word")
                        : vit     ? tr("Transformer layers: each is a step on the canvas (the CLS token's attention)")
                                  : tr("Attention steps"));
    m_grid->setToolTip(vit ? tr("Patch side in pixels: it must divide the image side (10 gives 6 x 6 patches on 60 px)")
                           : tr("Attention grid: g x g cells"));
    const VitConfig vitDefaults;
    const auto shape = datasetShape(m_dataset->currentData().toString().toStdString());
    m_grid->setValue(caption ? CaptionConfig{}.grid
                     : vit   ? fittingPatch(shape ? shape->width : vitDefaults.imageSize, 10)
                             : PatchConfig{}.grid);
    m_steps->setValue(ram ? RamConfig{}.glimpses : vit ? vitDefaults.layers : PatchConfig{}.steps);
    m_batch->setValue(caption ? CaptionTrainOptions{}.batch
                      : seq   ? SeqTrainOptions{}.batch
                      : vit   ? VitTrainOptions{}.batch
                              : PatchTrainOptions{}.batch);
    m_lr->setValue(ram       ? RamTrainOptions{}.lr
                   : caption ? CaptionTrainOptions{}.lr
                   : seq     ? SeqTrainOptions{}.lr
                   : vit     ? VitTrainOptions{}.lr
                             : PatchTrainOptions{}.lr);
}

void TrainingPanel::enableFamilyOptions() {
    const QString f = family();
    const bool idle = !isRunning();
    m_variant->setEnabled(idle && f == QLatin1String("patch"));
    m_scorer->setEnabled(idle && f != QLatin1String("ram") && f != QLatin1String("vit"));
    m_grid->setEnabled(idle && f != QLatin1String("ram") && f != QLatin1String("seq"));
    m_steps->setEnabled(idle && f != QLatin1String("caption") && f != QLatin1String("seq"));
    m_mode->setEnabled(idle && f != QLatin1String("ram") && f != QLatin1String("vit"));
    m_sharpen->setEnabled(idle && f == QLatin1String("caption") && m_mode->currentData().toString() == QLatin1String("soft"));
}

TrainingJob::Trainer TrainingPanel::trainer() const {
    PatchTrainOptions p = options();
    if (!m_stagedOut.isEmpty()) p.out = m_stagedOut.toStdString();  // staged: kept or discarded when it ends
    const QString f = family();
    if (f == QLatin1String("ram")) {
        RamTrainOptions o;
        o.dataset = p.dataset;
        o.model.glimpses = p.model.steps;
        takeFormBudget(p, o);
        o.command = QStringLiteral("saccade-cli train ram --dataset %1 --glimpses %2 --batch %3 --lr %4 --seed %5")
                        .arg(QString::fromStdString(o.dataset)).arg(o.model.glimpses).arg(o.batch).arg(o.lr)
                        .arg(o.seed).toStdString();
        return [o](const auto& progress) { return trainRamModel(o, progress); };
    }
    if (f == QLatin1String("caption")) {
        CaptionTrainOptions o;
        o.dataset = p.dataset;
        o.model.mode = p.model.mode;
        o.model.scorer = p.model.scorer;
        o.model.grid = p.model.grid;
        takeFormBudget(p, o);
        // Sharpening replaces the doubly stochastic regulariser, which pulls words off their objects.
        if (o.model.mode == "soft" && m_sharpen->value() > 0) {
            o.attentionEntropy = m_sharpen->value();
            o.dsrLambda = 0;
        }
        o.command = QStringLiteral("saccade-cli train caption --dataset %1 --mode %2 --grid %3 --scorer %4 --batch %5 "
                                   "--lr %6 --seed %7")
                        .arg(QString::fromStdString(o.dataset), QString::fromStdString(o.model.mode))
                        .arg(o.model.grid).arg(QString::fromStdString(o.model.scorer)).arg(o.batch).arg(o.lr)
                        .arg(o.seed).toStdString();
        if (o.attentionEntropy > 0)
            o.command += " --dsr-lambda 0 --attention-entropy " + QString::number(o.attentionEntropy).toStdString();
        return [o](const auto& progress) { return trainCaptionModel(o, progress); };
    }
    if (f == QLatin1String("seq")) {
        // Modes: soft or hard alignment over the chosen scorer, or the Transformer (its own attention).
        SeqTrainOptions o;
        o.model.task = p.dataset;
        const bool transformer = p.model.mode == "transformer";
        o.model.architecture = transformer ? "transformer" : "rnn";
        o.model.alignment = p.model.mode == "hard" ? "hard" : "soft";
        o.model.scorer = p.model.scorer;
        takeFormBudget(p, o);
        o.command = transformer
                        ? QStringLiteral("saccade-cli train seq --task %1 --architecture transformer --batch %2 --lr %3 --seed %4")
                              .arg(QString::fromStdString(o.model.task)).arg(o.batch).arg(o.lr).arg(o.seed).toStdString()
                        : QStringLiteral("saccade-cli train seq --task %1 --scorer %2 --alignment %3 --batch %4 --lr %5 --seed %6")
                              .arg(QString::fromStdString(o.model.task), QString::fromStdString(o.model.scorer),
                                   QString::fromStdString(o.model.alignment))
                              .arg(o.batch).arg(o.lr).arg(o.seed).toStdString();
        return [o](const auto& progress) { return trainSeqModel(o, progress); };
    }
    if (f == QLatin1String("vit")) {
        VitTrainOptions o;
        o.dataset = p.dataset;
        o.model.layers = p.model.steps;
        o.model.patch = p.model.grid;
        takeFormBudget(p, o);
        o.command = QStringLiteral("saccade-cli train vit --dataset %1 --patch %2 --layers %3 --dim %4 --heads %5 "
                                   "--mlp %6 --batch %7 --lr %8 --seed %9")
                        .arg(QString::fromStdString(o.dataset)).arg(o.model.patch).arg(o.model.layers)
                        .arg(o.model.dim).arg(o.model.heads).arg(o.model.mlp).arg(o.batch).arg(o.lr).arg(o.seed)
                        .toStdString();
        return [o](const auto& progress) { return trainVitModel(o, progress); };
    }
    return [p](const auto& progress) { return trainPatchModel(p, progress); };
}

PatchTrainOptions TrainingPanel::options() const {
    PatchTrainOptions o;
    o.dataset = m_dataset->currentData().toString().toStdString();
    o.model.mode = m_mode->currentData().toString().toStdString();
    o.model.scorer = m_scorer->currentData().toString().toStdString();
    o.model.variant = m_variant->currentData().toString().toStdString();
    o.model.steps = m_steps->value();
    o.model.grid = m_grid->value();
    o.batch = m_batch->value();
    o.minutes = m_minutes->value();
    o.iterations = m_iterations->value();
    o.lr = m_lr->value();
    o.seed = quint64(m_seed->value());
    o.out = m_out->text().toStdString();
    o.command = QStringLiteral("saccade-cli train patch --dataset %1 --mode %2 --steps %3 --grid %4 "
                               "--scorer %5 --variant %6 --batch %7 --seed %8 --lr %9")
                    .arg(m_dataset->currentData().toString(), m_mode->currentData().toString())
                    .arg(o.model.steps).arg(o.model.grid)
                    .arg(m_scorer->currentData().toString(), m_variant->currentData().toString())
                    .arg(o.batch).arg(o.seed).arg(o.lr)
                    .toStdString();
    return o;
}

void TrainingPanel::setOptions(const PatchTrainOptions& o) {
    auto pick = [](QComboBox* c, const std::string& v) {
        const int i = c->findData(QString::fromStdString(v));
        if (i >= 0) c->setCurrentIndex(i);
    };
    pick(m_dataset, o.dataset);
    pick(m_mode, o.model.mode);
    pick(m_scorer, o.model.scorer);
    pick(m_variant, o.model.variant);
    m_steps->setValue(o.model.steps);
    m_grid->setValue(o.model.grid);
    m_batch->setValue(o.batch);
    m_minutes->setValue(o.minutes);
    m_iterations->setValue(int(o.iterations));
    m_lr->setValue(o.lr);
    m_seed->setValue(int(o.seed));
    if (!o.out.empty()) m_out->setText(QString::fromStdString(o.out));
}

bool TrainingPanel::isRunning() const { return m_job->isRunning(); }
QString TrainingPanel::statusText() const { return m_status->text(); }

void TrainingPanel::startTraining() {
    const PatchTrainOptions o = options();
    if (o.out.empty()) {
        m_status->setText(tr("Choose where to save the model."));
        return;
    }
    QDir().mkpath(QFileInfo(m_out->text()).absolutePath());
    m_chart->clear(m_mode->currentData().toString(), family());
    m_lastEval.clear();
    m_progress->setRange(0, 0);  // busy until the warm-up fixes the iteration count
    m_finalOut = QFileInfo(m_out->text()).absoluteFilePath();
    m_stagedOut = QString::fromStdString(stagedCheckpointPath(m_finalOut.toStdString()));
    m_discarding = false;
    if (!m_job->start(trainer())) return;
    m_openModel->setEnabled(false);  // the last model stays on disk, but this run is not it yet
    setRunning(true);
    m_status->setText(tr("Starting: loading the data and timing the first iterations…"));
    Q_EMIT statusMessage(tr("Training %1").arg(m_out->text()));
}

void TrainingPanel::stopTraining() {
    if (!isRunning()) return;
    m_job->cancel();
    m_stop->setEnabled(false);
    m_status->setText(tr("Stopping after this iteration; the model will be saved…"));
}

void TrainingPanel::onProgress(const TrainProgress& p) {
    m_chart->add(p);
    if (p.total > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(1000.0 * double(p.iteration) / double(p.total)));
    }
    // Under a time budget the total is known once the speed is measured; until then, say so.
    QString text = (p.total > 0 ? tr("iteration %1 of %2, %3 elapsed, ETA %4; ")
                                      .arg(p.iteration).arg(p.total).arg(clock(p.elapsedSeconds), clock(p.etaSeconds))
                                : tr("iteration %1, %2 elapsed (measuring the speed to fit the time budget); ")
                                      .arg(p.iteration).arg(clock(p.elapsedSeconds))) +
                   tr("cross-entropy %1, batch accuracy %2").arg(p.crossEntropy, 0, 'f', 3).arg(p.trainAccuracy, 0, 'f', 3);
    if (p.evaluated && family() == QLatin1String("caption"))
        m_lastEval = tr("last evaluation (iteration %1, held-out scenes): exact match soft %2, argmax %3, sample %4; "
                        "BLEU-4 %5, attention mass on the named object %6")
                         .arg(p.iteration)
                         .arg(p.evalSoft, 0, 'f', 3).arg(p.evalArgmax, 0, 'f', 3).arg(p.evalSample, 0, 'f', 3)
                         .arg(p.evalBleu4, 0, 'f', 3).arg(p.evalAttention, 0, 'f', 3);
    else if (p.evaluated && family() == QLatin1String("seq"))
        m_lastEval = tr("last evaluation (iteration %1, held-out sentences): exact match %2%3")
                         .arg(p.iteration)
                         .arg(p.evalSoft, 0, 'f', 3)
                         .arg(m_mode->currentData().toString() == QLatin1String("hard")
                                  ? tr(" (argmax), %1 (sampled)").arg(p.evalSample, 0, 'f', 3)
                                  : QString());
    else if (p.evaluated && family() == QLatin1String("vit"))
        m_lastEval = tr("last evaluation (iteration %1, first 1000 test images): accuracy %2")
                         .arg(p.iteration)
                         .arg(p.evalSoft, 0, 'f', 3);
    else if (p.evaluated && family() == QLatin1String("ram"))
        m_lastEval = tr("last evaluation (iteration %1, first 1000 test images): mean %2, sample %3, random glimpses %4")
                         .arg(p.iteration)
                         .arg(p.evalArgmax, 0, 'f', 3).arg(p.evalSample, 0, 'f', 3).arg(p.evalSoft, 0, 'f', 3);
    else if (p.evaluated)
        m_lastEval = tr("last evaluation (iteration %1, first 1000 test images): soft %2, argmax %3, sample %4")
                         .arg(p.iteration)
                         .arg(p.evalSoft, 0, 'f', 3).arg(p.evalArgmax, 0, 'f', 3).arg(p.evalSample, 0, 'f', 3);
    m_status->setText(m_lastEval.isEmpty() ? text : text + QLatin1Char('\n') + m_lastEval);
}

void TrainingPanel::setRunning(bool running) {
    m_train->setEnabled(!running);
    m_stop->setEnabled(running);
    m_discard->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*>{m_family, m_dataset, m_mode, m_scorer, m_variant, m_steps, m_grid,
                                                      m_batch, m_minutes, m_iterations, m_lr, m_sharpen, m_seed, m_out,
                                                      m_browse})
        w->setEnabled(!running);
    if (!running) enableFamilyOptions();  // what the family does not use stays off
    if (!running && m_progress->maximum() == 0) m_progress->setRange(0, 1000);
}

}  // namespace saccade::ui
