#include "ui/training/training_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <cmath>

#include "ui/charts/training_chart.h"
#include "ui/file_dialogs.h"
#include "io/checkpoint_staging.h"
#include "ui/training/training_job.h"

namespace saccade::ui {

namespace {

QString clock(double seconds) {
    const int s = int(std::lround(std::max(0.0, seconds)));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString defaultOut(const QString& family, const QString& tag, const QString& dataset) {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(dir.isEmpty() ? QDir::homePath() : dir)
        .filePath(tag.isEmpty() ? QStringLiteral("models/%1-%2.pt").arg(family, dataset)
                                 : QStringLiteral("models/%1-%2-%3.pt").arg(family, tag, dataset));
}

QString text(const std::string& s) { return QString::fromStdString(s); }

constexpr int kFirstFieldRow = 2;  // the family's fields follow Model and Dataset

/// An editor for field `f`, at its default, with its help as the tooltip.
QWidget* fieldEditor(const FamilyField& f, QWidget* parent) {
    QWidget* editor = nullptr;
    switch (f.kind) {
    case FamilyField::Kind::Integer: {
        auto* s = new QSpinBox(parent);
        s->setRange(int(std::max(f.min, -2147483647.0)), int(std::min(f.max, 2147483647.0)));
        s->setValue(text(f.value).toInt());
        editor = s;
        break;
    }
    case FamilyField::Kind::Real: {
        auto* s = new QDoubleSpinBox(parent);
        s->setDecimals(f.max <= 1 ? 5 : 3);
        s->setRange(f.min, f.max);
        s->setSingleStep(f.max <= 1 ? 1e-4 : 0.01);
        s->setValue(text(f.value).toDouble());
        editor = s;
        break;
    }
    case FamilyField::Kind::Choice: {
        auto* c = new QComboBox(parent);
        for (const auto& choice : f.choices) c->addItem(text(choice), text(choice));
        c->setCurrentIndex(std::max(0, c->findData(text(f.value))));
        editor = c;
        break;
    }
    case FamilyField::Kind::Flag:
        editor = new QCheckBox(parent);
        break;
    case FamilyField::Kind::Text:
        editor = new QLineEdit(text(f.value), parent);
        break;
    }
    editor->setObjectName(QStringLiteral("field-") + text(f.key));
    editor->setToolTip(text(f.help));
    return editor;
}

bool setEditorValue(QWidget* editor, const QString& value) {
    if (auto* s = qobject_cast<QSpinBox*>(editor)) {
        bool ok = false;
        const int v = value.toInt(&ok);
        if (!ok || v < s->minimum() || v > s->maximum()) return false;
        s->setValue(v);
    } else if (auto* d = qobject_cast<QDoubleSpinBox*>(editor)) {
        bool ok = false;
        const double v = value.toDouble(&ok);
        if (!ok || v < d->minimum() || v > d->maximum()) return false;
        d->setValue(v);
    } else if (auto* c = qobject_cast<QComboBox*>(editor)) {
        const int i = c->findData(value);
        if (i < 0) return false;
        c->setCurrentIndex(i);
    } else if (auto* b = qobject_cast<QCheckBox*>(editor)) {
        b->setChecked(value == QLatin1String("true"));
    } else if (auto* e = qobject_cast<QLineEdit*>(editor)) {
        e->setText(value);
    }
    return true;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("trainingPanel"));
    m_job = new TrainingJob(this);
    buildWidgets();
    auto* right = new QVBoxLayout;
    right->addWidget(m_chart, 1);
    right->addWidget(m_progress);
    right->addWidget(m_status);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(buildOptionsBox());
    layout->addLayout(right, 1);
    applyFamily();
    connectSignals();
    updateOut();
    setRunning(false);
    m_openModel->setEnabled(false);
}

void TrainingPanel::buildWidgets() {
    m_family = new QComboBox(this);
    m_family->setObjectName(QStringLiteral("familyCombo"));
    for (const ModelFamily* f : modelFamilies())
        if (f->train) m_family->addItem(text(f->title), text(f->name));
    m_dataset = new QComboBox(this);
    m_dataset->setObjectName(QStringLiteral("datasetCombo"));
    auto spin = [this](int lo, int hi, int value) {
        auto* s = new QSpinBox(this);
        s->setRange(lo, hi);
        s->setValue(value);
        return s;
    };
    m_batch = spin(1, 1024, 128);
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
    m_seed = spin(0, 2147483647, 1);
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
}

QWidget* TrainingPanel::buildOptionsBox() {
    // One form, so that every label shares a column: Model and Dataset, the family's fields (from
    // row kFirstFieldRow, rebuilt when the family changes), then what every family takes.
    auto* common = m_fieldForm = new QFormLayout;
    m_fieldForm->addRow(tr("Model:"), m_family);
    m_fieldForm->addRow(tr("Dataset:"), m_dataset);
    common->addRow(tr("Batch:"), m_batch);
    common->addRow(tr("Budget:"), m_minutes);
    common->addRow(tr("Iterations:"), m_iterations);
    common->addRow(tr("Learning rate:"), m_lr);
    common->addRow(tr("Seed:"), m_seed);
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(m_out, 1);
    outRow->addWidget(m_browse);
    common->addRow(tr("Save to:"), outRow);
    auto* buttons = new QGridLayout;
    buttons->addWidget(m_train, 0, 0);
    buttons->addWidget(m_openModel, 0, 1);
    buttons->addWidget(m_stop, 1, 0);
    buttons->addWidget(m_discard, 1, 1);
    auto* box = new QGroupBox(tr("Train a model"), this);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(m_fieldForm);
    layout->addLayout(buttons);
    layout->addStretch(1);
    box->setMaximumWidth(380);
    return box;
}

void TrainingPanel::connectSignals() {
    connect(m_family, &QComboBox::currentIndexChanged, this, [this] {
        applyFamily();
        updateOut();
    });
    connect(m_dataset, &QComboBox::currentIndexChanged, this, [this] {
        fitToDataset();
        updateOut();
    });
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

const ModelFamily& TrainingPanel::currentFamily() const {
    const ModelFamily* f = findFamily(family().toStdString());
    return f ? *f : *modelFamilies().front();
}

QString TrainingPanel::family() const { return m_family->currentData().toString(); }

bool TrainingPanel::setFamily(const QString& family) {
    const int i = m_family->findData(family);
    if (i < 0) return false;
    m_family->setCurrentIndex(i);
    return true;
}

void TrainingPanel::applyFamily() {
    const ModelFamily& f = currentFamily();
    const QString previous = m_dataset->currentData().toString();
    {
        const QSignalBlocker block(m_dataset);
        m_dataset->clear();
        for (const auto& d : f.datasets ? f.datasets() : std::vector<std::string>{f.defaultDataset})
            m_dataset->addItem(text(d), text(d));
        const int keep = m_dataset->findData(previous);
        m_dataset->setCurrentIndex(keep >= 0 ? keep : std::max(0, m_dataset->findData(text(f.defaultDataset))));
    }
    for (std::size_t i = 0; i < m_fields.size(); ++i) m_fieldForm->removeRow(kFirstFieldRow);  // deletes their editors
    m_fields.clear();
    int row = kFirstFieldRow;
    for (const auto& field : f.fields) {
        if (!field.inForm) continue;
        QWidget* editor = fieldEditor(field, this);
        m_fieldForm->insertRow(row++, text(field.label), editor);
        m_fields[field.key] = editor;
        auto changed = [this] { enableFamilyOptions(); updateOut(); };
        if (auto* c = qobject_cast<QComboBox*>(editor)) connect(c, &QComboBox::currentIndexChanged, this, changed);
        if (auto* b = qobject_cast<QCheckBox*>(editor)) connect(b, &QCheckBox::toggled, this, changed);
    }
    m_batch->setValue(f.defaults.batch);
    m_lr->setValue(f.defaults.lr);
    m_openModel->setText(f.readsText ? tr("Open in Sequences") : tr("Open in Attention"));
    m_chart->clear(f.progress, f.progress.reward);  // its series, named as this family reads them
    m_lastEval.clear();
    m_progress->setValue(0);  // nothing shown is the previous family's run
    m_status->setText(m_lastCheckpoint.isEmpty()
                          ? tr("Choose the options and press Train.")
                          : tr("Choose the options and press Train. The last model trained here: %1").arg(m_lastCheckpoint));
    fitToDataset();
    enableFamilyOptions();
}

void TrainingPanel::fitToDataset() {
    const ModelFamily& f = currentFamily();
    if (!f.fitToDataset) return;
    FamilySettings s = request().settings;
    f.fitToDataset(s, m_dataset->currentData().toString().toStdString());
    for (const auto& [key, editor] : m_fields) setEditorValue(editor, text(s[key]));
}

void TrainingPanel::updateOut() {
    if (isRunning()) return;
    const ModelFamily& f = currentFamily();
    const QString tag = f.fileTagKey.empty() ? QString() : text(textSetting(request().settings, f.fileTagKey));
    m_out->setText(defaultOut(family(), tag, m_dataset->currentData().toString()));
}

void TrainingPanel::enableFamilyOptions() {
    const bool idle = !isRunning();
    const FamilySettings s = request().settings;
    for (const auto& f : currentFamily().fields) {
        const auto it = m_fields.find(f.key);
        if (it == m_fields.end()) continue;
        it->second->setEnabled(idle && fieldApplies(f, s));
        if (auto* label = m_fieldForm->labelForField(it->second)) label->setEnabled(it->second->isEnabled());
    }
}

QString TrainingPanel::fieldValue(const FamilyField& f) const {
    const auto it = m_fields.find(f.key);
    if (it == m_fields.end()) return text(f.value);
    QWidget* e = it->second;
    if (auto* s = qobject_cast<QSpinBox*>(e)) return QString::number(s->value());
    if (auto* d = qobject_cast<QDoubleSpinBox*>(e)) return text(numberText(d->value()));
    if (auto* c = qobject_cast<QComboBox*>(e)) return c->currentData().toString();
    if (auto* b = qobject_cast<QCheckBox*>(e)) return b->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
    if (auto* l = qobject_cast<QLineEdit*>(e)) return l->text();
    return text(f.value);
}

FamilyTrainRequest TrainingPanel::request() const {
    const ModelFamily& f = currentFamily();
    FamilyTrainRequest r;
    r.common = f.defaults;
    r.dataset = m_dataset->currentData().toString().toStdString();
    for (const auto& field : f.fields) r.settings[field.key] = fieldValue(field).toStdString();
    r.common.batch = m_batch->value();
    r.common.minutes = m_minutes->value();
    r.common.iterations = m_iterations->value();
    r.common.lr = m_lr->value();
    r.common.seed = quint64(m_seed->value());
    r.common.out = m_out->text().toStdString();
    r.common.command = recreateCommand(f, r);
    return r;
}

void TrainingPanel::setRequest(const FamilyTrainRequest& r) {
    if (const int i = m_dataset->findData(text(r.dataset)); i >= 0) m_dataset->setCurrentIndex(i);
    for (const auto& [key, value] : r.settings) setField(text(key), text(value));
    m_batch->setValue(r.common.batch);
    m_minutes->setValue(r.common.minutes);
    m_iterations->setValue(int(r.common.iterations));
    m_lr->setValue(r.common.lr);
    m_seed->setValue(int(r.common.seed));
    if (!r.common.out.empty()) m_out->setText(text(r.common.out));
}

bool TrainingPanel::setField(const QString& key, const QString& value) {
    const auto it = m_fields.find(key.toStdString());
    return it != m_fields.end() && setEditorValue(it->second, value);
}

bool TrainingPanel::isRunning() const { return m_job->isRunning(); }
QString TrainingPanel::statusText() const { return m_status->text(); }

void TrainingPanel::startTraining() {
    FamilyTrainRequest r = request();
    if (r.common.out.empty()) {
        m_status->setText(tr("Choose where to save the model."));
        return;
    }
    const ModelFamily* f = findFamily(family().toStdString());
    if (auto checked = checkSettings(*f, r.settings); !checked) {
        m_status->setText(tr("Cannot train: %1").arg(text(checked.error())));
        return;
    }
    QDir().mkpath(QFileInfo(m_out->text()).absolutePath());
    m_chart->clear(f->progress, f->reinforced && f->reinforced(r.settings));
    m_lastEval.clear();
    m_progress->setRange(0, 0);  // busy until the warm-up fixes the iteration count
    m_finalOut = QFileInfo(m_out->text()).absoluteFilePath();
    m_stagedOut = text(stagedCheckpointPath(m_finalOut.toStdString()));
    m_discarding = false;
    r.common.out = m_stagedOut.toStdString();  // staged: kept or discarded when it ends
    m_runSettings = r.settings;
    if (!m_job->start([f, r](const auto& progress) { return f->train(r, progress); })) return;
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
    QString line = (p.total > 0 ? tr("iteration %1 of %2, %3 elapsed, ETA %4; ")
                                      .arg(p.iteration).arg(p.total).arg(clock(p.elapsedSeconds), clock(p.etaSeconds))
                                : tr("iteration %1, %2 elapsed (measuring the speed to fit the time budget); ")
                                      .arg(p.iteration).arg(clock(p.elapsedSeconds))) +
                   tr("cross-entropy %1, batch accuracy %2").arg(p.crossEntropy, 0, 'f', 3).arg(p.trainAccuracy, 0, 'f', 3);
    if (p.evaluated && currentFamily().evaluationLine)
        m_lastEval = tr("last evaluation (iteration %1, held-out data):%2")
                         .arg(p.iteration)
                         .arg(text(currentFamily().evaluationLine(p, m_runSettings)));
    m_status->setText(m_lastEval.isEmpty() ? line : line + QLatin1Char('\n') + m_lastEval);
}

void TrainingPanel::setRunning(bool running) {
    m_train->setEnabled(!running);
    m_stop->setEnabled(running);
    m_discard->setEnabled(running);
    for (QWidget* w : std::initializer_list<QWidget*>{m_family, m_dataset, m_batch, m_minutes, m_iterations, m_lr,
                                                      m_seed, m_out, m_browse})
        w->setEnabled(!running);
    enableFamilyOptions();  // what the chosen settings do not use stays off
    if (!running && m_progress->maximum() == 0) m_progress->setRange(0, 1000);
}

}  // namespace saccade::ui
