#include "ui/sequences/sequences_page.h"
#include "ui/file_dialogs.h"

#include <future>

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <functional>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent>

#include "common/atomic_file.h"
#include "common/display_text.h"
#include "common/samples_dir.h"
#include "data/image_io.h"
#include "render/alignment_render.h"
#include "render/gif_writer.h"
#include "models/translation_maps.h"
#include "models/translator_eval.h"
#include "ui/sequences/alignment_view.h"
#include "ui/sequences/attribution_maps.h"
#include "ui/sequences/seq_examples.h"
#include "ui/sequences/similarity_panel.h"
#include "ui/sequences/seq_evaluation_panel.h"
#include "trace/seq_trace_json.h"

namespace saccade::ui {

namespace {

struct TranslateJob {
    std::optional<SeqTranslation> result[2];
    QString error[2];
    std::optional<SeqTranslation> attributed[2];  ///< the chosen attribution map's view, when one is chosen
    QString attributionError[2];
};

}  // namespace

SequencesPage::SequencesPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("sequencesPage"));
    QHBoxLayout* top = buildModelRow();
    QHBoxLayout* inputRow = buildInputRow();
    auto* views = new QHBoxLayout;
    for (int i = 0; i < 2; ++i) {
        m_views[i] = new AlignmentView(this);
        m_views[i]->setObjectName(QStringLiteral("alignmentView%1").arg(i));
        views->addWidget(m_views[i], 1);
        connect(m_views[i], &AlignmentView::stepClicked, this, &SequencesPage::setStep);
    }
    QHBoxLayout* stepRow = buildStepRow();
    m_evaluation = new SeqEvaluationPanel([this] {
        ensureModels();
        SeqEvaluationRequest r;
        for (int i = 0; i < 2; ++i)
            if (auto m = modelAt(i)) r.models.push_back(m);
        r.rule = m_rule->currentData().toString().toStdString();
        r.seed = std::uint64_t(m_seed->value());
        return r;
    }, this);
    connect(m_evaluation, &SeqEvaluationPanel::finished, this, &SequencesPage::evaluationFinished);
    connect(m_evaluation, &SeqEvaluationPanel::statusMessage, this, &SequencesPage::statusMessage);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(inputRow);
    layout->addWidget(m_output);
    layout->addLayout(views, 1);
    layout->addLayout(stepRow);
    layout->addWidget(m_stepLabel);
    layout->addWidget(m_evaluation);
    m_similarity = new SimilarityPanel(this);
    m_similarity->setVisible(false);  // a text encoder's: shown while one is the main model
    layout->addWidget(m_similarity);
    connectSignals();
    addShortcuts();
    // The bundled models are opened when the page is first shown or used (ensureModels), not
    // when the window starts.
}

// The model, the one beside it, the rule and its seed, and Open model….
QHBoxLayout* SequencesPage::buildModelRow() {
    m_model = new QComboBox(this);
    m_model->setObjectName(QStringLiteral("seqModel"));
    m_model->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_model->setMinimumContentsLength(14);  // two of them and the rule fit presentation type at 1,280 px
    m_compare = new QComboBox(this);
    m_compare->setObjectName(QStringLiteral("seqCompare"));
    m_compare->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compare->setMinimumContentsLength(14);
    m_rule = new QComboBox(this);
    m_rule->setObjectName(QStringLiteral("seqRule"));
    m_rule->addItem(tr("model's own"), QString());
    m_rule->setToolTip(tr("soft: the expected context; argmax and sample read one source token per step (for a soft "
                          "model, a different procedure from the one it was trained with); translate: an imported "
                          "model's own decoding"));
    m_seed = new QSpinBox(this);
    m_seed->setRange(0, 1000000);
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the sample rule"));
    auto* open = new QPushButton(tr("Open model…"), this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Model"), this));
    top->addWidget(m_model, 1);  // the model boxes take the row's spare width
    top->addWidget(new QLabel(tr("beside"), this));
    top->addWidget(m_compare, 1);
    top->addWidget(new QLabel(tr("Rule"), this));
    top->addWidget(m_rule);
    top->addWidget(new QLabel(tr("Seed"), this));
    top->addWidget(m_seed);
    top->addWidget(open);

    connect(open, &QPushButton::clicked, this, [this] {
        const auto path = openFileDialog(this, tr("Open a sequence model"),
                                         tr("Checkpoints, TorchScript translators and text encoders (*.pt)"));
        if (!path.isEmpty()) openModel(path);
    });
    return top;
}

// The input with its examples, and the output over the matrices.
QHBoxLayout* SequencesPage::buildInputRow() {
    m_input = new QLineEdit(this);
    m_input->setObjectName(QStringLiteral("seqInput"));
    m_input->setPlaceholderText(tr("Type an input: the output and its alignment redraw as you type"));
    QFont big = m_input->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    m_input->setFont(big);
    m_examples = new QComboBox(this);
    m_examples->setObjectName(QStringLiteral("seqExamples"));
    m_examples->setToolTip(tr("Inputs worth trying, including ones outside the task"));
    auto* inputRow = new QHBoxLayout;
    inputRow->addWidget(m_input, 1);
    inputRow->addWidget(m_examples);
    m_output = new QLabel(this);
    m_output->setObjectName(QStringLiteral("seqOutput"));
    m_output->setTextFormat(Qt::RichText);
    m_output->setWordWrap(true);
    return inputRow;
}

// The step slider and Play, the map and its mode, and Export.
QHBoxLayout* SequencesPage::buildStepRow() {
    m_stepSlider = new QSlider(Qt::Horizontal, this);
    m_stepSlider->setObjectName(QStringLiteral("seqStep"));
    m_play = new QPushButton(tr("Play"), this);
    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(600);
    m_stepLabel = new QLabel(this);
    m_stepLabel->setObjectName(QStringLiteral("seqStepLabel"));
    m_stepLabel->setTextFormat(Qt::PlainText);
    auto* stepRow = new QHBoxLayout;
    stepRow->addWidget(new QLabel(tr("Step"), this));
    stepRow->addWidget(m_stepSlider, 1);
    stepRow->addWidget(m_play);
    m_map = new QComboBox(this);
    m_map->setObjectName(QStringLiteral("seqMap"));
    m_map->setToolTip(tr("Transformers: each layer's and head's cross-, encoder self- and decoder self-attention, their "
                         "means over heads, and attention rollout (Abnar and Zuidema 2020). Every model: each output "
                         "token's attribution over the input (gradient, gradient x input, integrated gradients, "
                         "occlusion), drawn beside the attention"));
    m_map->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_map->setMinimumContentsLength(26);  // "attribution: integrated-gradients"
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("seqMode"));
    m_mode->addItems({tr("matrix"), tr("head view")});
    stepRow->addWidget(new QLabel(tr("Map"), this));
    stepRow->addWidget(m_map);
    stepRow->addWidget(m_mode);
    m_export = new QToolButton(this);
    m_export->setText(tr("Export"));
    m_export->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_export);
    for (const auto& [label, kind] : {std::pair{tr("Matrix as PNG…"), "png"}, {tr("Matrix as SVG…"), "svg"},
                                      {tr("Matrix as CSV…"), "csv"}, {tr("Trace as JSON…"), "json"},
                                      {tr("Playback as GIF…"), "gif"}})
        menu->addAction(label, this, [this, kind = QString::fromLatin1(kind)] { exportAs(kind); });
    m_export->setMenu(menu);
    stepRow->addWidget(m_export);
    return stepRow;
}

// Evaluate on the test split, with Cancel, progress and the results table.
void SequencesPage::connectSignals() {
    connect(m_input, &QLineEdit::textChanged, this, [this] {
        m_editClock.start();
        translate();
    });
    connect(m_model, &QComboBox::currentIndexChanged, this, [this] {
        m_evaluation->forget();
        if (auto m = modelAt(0); m && m->asTextEncoder()) {
            // A text encoder reads sentences: another model's example becomes one of its own, and a
            // translator beside it (which reads another kind of text) goes.
            const QSignalBlocker b1(m_input), b2(m_compare);
            if (auto beside = modelAt(1); beside && !beside->asTextEncoder()) m_compare->setCurrentIndex(0);
            // m_examples still lists the previous model's examples
            if (m_input->text().isEmpty() || m_examples->findText(m_input->text()) > 0) m_input->setText(examplesFor(*m).front());
        }
        refillExamples();
        refillRules();
        translate();
    });
    for (QComboBox* box : {m_compare, m_rule})
        connect(box, &QComboBox::currentIndexChanged, this, [this] {
            m_evaluation->forget();
            translate();
        });
    connect(m_seed, &QSpinBox::valueChanged, this, [this] {
        m_evaluation->forget();
        translate();
    });
    connect(m_examples, &QComboBox::activated, this, [this](int index) {
        if (index > 0) m_input->setText(m_examples->itemText(index));
        m_examples->setCurrentIndex(0);
    });
    connect(m_stepSlider, &QSlider::valueChanged, this, &SequencesPage::setStep);
    connect(m_map, &QComboBox::currentIndexChanged, this, [this] {
        // An attribution map is computed on the worker with the translation; attention maps come with it.
        if (!attributionMethodOf(m_map->currentText()).empty()) translate();
        else showTranslations();
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int mode) {
        for (auto* v : m_views) v->setHeadView(mode == 1);
    });
    connect(m_play, &QPushButton::clicked, this, [this] {
        if (m_playTimer->isActive()) {
            m_playTimer->stop();
            m_play->setText(tr("Play"));
            return;
        }
        m_stepSlider->setValue(0);
        m_playTimer->start();
        m_play->setText(tr("Stop"));
    });
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_stepSlider->value() >= m_stepSlider->maximum()) {
            m_playTimer->stop();
            m_play->setText(tr("Play"));
        } else {
            m_stepSlider->setValue(m_stepSlider->value() + 1);
        }
    });
}

// The Attention page's keys: arrows step, Home and End go to the ends (the input keeps its own).
void SequencesPage::addShortcuts() {
    const std::pair<QKeySequence, std::function<void()>> keys[] = {
        {QKeySequence(Qt::Key_Left), [this] { m_stepSlider->setValue(m_stepSlider->value() - 1); }},
        {QKeySequence(Qt::Key_Right), [this] { m_stepSlider->setValue(m_stepSlider->value() + 1); }},
        {QKeySequence(Qt::Key_Home), [this] { m_stepSlider->setValue(m_stepSlider->minimum()); }},
        {QKeySequence(Qt::Key_End), [this] { m_stepSlider->setValue(m_stepSlider->maximum()); }}};
    for (const auto& [key, act] : keys) {
        auto* s = new QShortcut(key, this, act);
        s->setContext(Qt::WidgetWithChildrenShortcut);
    }
}

void SequencesPage::ensureModels() {
    if (m_modelsLoaded) return;
    m_modelsLoaded = true;
    // The bundled models, dates first; the first two of the first task side by side.
    const auto samples = QString::fromStdString(findSamplesDir());
    if (!samples.isEmpty()) {
        const auto files = QDir(samples + QStringLiteral("/models")).entryInfoList({QStringLiteral("seq-*.pt")}, QDir::Files, QDir::Name);
        for (const auto& f : files) {
            auto m = openTranslator(f.absoluteFilePath().toStdString());
            if (m) m_models.push_back(*m);
        }
        std::stable_sort(m_models.begin(), m_models.end(), [](const auto& a, const auto& b) {
            return (a->taskName() == "dates") > (b->taskName() == "dates");
        });
    }
    refreshCombos();
    if (m_models.size() > 1 && m_models[1]->taskName() == m_models[0]->taskName()) {
        const QSignalBlocker block(m_compare);
        m_compare->setCurrentIndex(2);
    }
    if (m_models.empty()) {
        m_output->setText(tr("No sequence model yet: open one (saccade-cli train seq) with Open model…"));
    } else if (m_input->text().isEmpty()) {
        const QSignalBlocker block(m_input);  // the caller translates it
        m_input->setText(examplesFor(*m_models[0]).front());
    }
}

void SequencesPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!m_modelsLoaded) translate();  // opens the models and shows the first example
}

void SequencesPage::refillExamples() {
    m_examples->clear();
    m_examples->addItem(tr("Examples…"));
    if (auto m = modelAt(0)) m_examples->addItems(examplesFor(*m));
}

SequencesPage::~SequencesPage() {
    // The job touches only its own copies and the models it shares; no event loop is needed.
    m_translateJob.waitForFinished();
}

void SequencesPage::refreshCombos() {
    const QSignalBlocker b1(m_model), b2(m_compare);
    const int current = m_model->currentIndex(), compare = m_compare->currentIndex();
    m_model->clear();
    m_compare->clear();
    m_compare->addItem(tr("nothing"));
    for (const auto& m : m_models) {
        m_model->addItem(seqModelName(*m));
        m_compare->addItem(seqModelName(*m));
    }
    m_model->setCurrentIndex(std::max(0, current));
    m_compare->setCurrentIndex(std::max(0, compare));
    refillExamples();
    refillRules();
}

void SequencesPage::refillRules() {
    const QSignalBlocker block(m_rule);
    const QString chosen = m_rule->currentData().toString();
    m_rule->clear();
    m_rule->addItem(tr("model's own"), QString());
    if (auto m = modelAt(0))
        for (const auto& r : m->rules()) m_rule->addItem(QString::fromStdString(r), QString::fromStdString(r));
    m_rule->setCurrentIndex(std::max(0, m_rule->findData(chosen)));
}

std::shared_ptr<const Translator> SequencesPage::modelAt(int slot) const {
    const int index = slot == 0 ? m_model->currentIndex() : m_compare->currentIndex() - 1;
    return index >= 0 && index < int(m_models.size()) ? m_models[size_t(index)] : nullptr;
}

bool SequencesPage::openModel(const QString& path, int slot) {
    ensureModels();
    // A model already in the list (a bundled one opened by its path) is selected, not added twice.
    const QString canonical = QFileInfo(path).canonicalFilePath();
    for (std::size_t i = 0; i < m_models.size(); ++i) {
        if (canonical.isEmpty() || QFileInfo(QString::fromStdString(m_models[i]->path())).canonicalFilePath() != canonical) continue;
        QComboBox* combo = slot == 0 ? m_model : m_compare;
        const int index = slot == 0 ? int(i) : int(i) + 1;
        if (combo->currentIndex() == index) translate();  // already selected: no change signal translates it
        else combo->setCurrentIndex(index);
        return true;
    }
    auto m = openTranslator(path.toStdString());
    if (!m) {
        m_output->setText(QStringLiteral("<span style='color:#b00'>%1</span>").arg(QString::fromStdString(m.error()).toHtmlEscaped()));
        Q_EMIT statusMessage(QString::fromStdString(m.error()));
        return false;
    }
    m_models.push_back(*m);
    refreshCombos();
    if (slot == 0) m_model->setCurrentIndex(int(m_models.size()) - 1);
    else m_compare->setCurrentIndex(int(m_models.size()));
    Q_EMIT statusMessage(tr("Opened %1").arg(path));
    translate();
    return true;
}

void SequencesPage::setText(const QString& text) { m_input->setText(text); }
QString SequencesPage::text() const { return m_input->text(); }
void SequencesPage::setRule(const QString& rule) { m_rule->setCurrentIndex(std::max(0, m_rule->findData(rule))); }
AlignmentView* SequencesPage::view(int slot) const { return m_views[slot]; }

void SequencesPage::waitForIdle() {
    while (m_busy || m_pending) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void SequencesPage::translate() {
    ensureModels();
    if (m_busy) {
        m_pending = true;
        return;
    }
    m_pending = false;
    const auto models = std::array<std::shared_ptr<const Translator>, 2>{modelAt(0), modelAt(1)};
    if (!models[0]) return;
    m_busy = true;
    const std::string text = m_input->text().toStdString();
    const std::string rule = m_rule->currentData().toString().toStdString();
    const auto seed = std::uint64_t(m_seed->value());
    const std::string method = attributionMethodOf(m_map->currentText());
    auto* watcher = new QFutureWatcher<TranslateJob>(this);
    connect(watcher, &QFutureWatcher<TranslateJob>::finished, this, [this, watcher] {
        const auto job = watcher->result();
        watcher->deleteLater();
        for (int i = 0; i < 2; ++i) {
            m_results2[i] = job.result[i];
            m_errors[i] = job.error[i];
            m_attributed[i] = job.attributed[i];
            m_attributionErrors[i] = job.attributionError[i];
        }
        showTranslations();
        m_busy = false;
        if (m_editClock.isValid()) m_lastLatencyMs = double(m_editClock.nsecsElapsed()) / 1e6;
        Q_EMIT translated();
        if (m_pending) translate();
    });
    const auto future = QtConcurrent::run([models, text, rule, seed, method] {
        TranslateJob job;
        auto run = [&](int i) {
            // A control or direction-override character (U+202E) would reorder the token lines drawn under it.
            auto shown = checkDisplayText(text, "the input", 100000);
            auto r = shown ? models[i]->translate(text, rule, seed) : Result<SeqTranslation>(Error{shown.error()});
            if (r) job.result[i] = std::move(r.value());
            else job.error[i] = QString::fromStdString(r.error());
            if (!job.result[i] || method.empty()) return;
            auto a = attributeShown(*models[i], *job.result[i], method, rule);
            job.attributed[i] = std::move(a.view);
            job.attributionError[i] = a.error;
        };
        // The model beside runs on a thread of its own: two cores redraw two matrices at once.
        std::future<void> beside;
        if (models[1]) beside = std::async(std::launch::async, run, 1);
        run(0);
        if (beside.valid()) beside.get();
        return job;
    });
    m_translateJob = QFuture<void>(future);
    watcher->setFuture(future);
}

bool SequencesPage::setMap(const QString& name) {
    const int index = m_map->findText(name);
    if (index < 0) return false;
    m_map->setCurrentIndex(index);
    return true;
}

void SequencesPage::setHeadView(bool headView) { m_mode->setCurrentIndex(headView ? 1 : 0); }

namespace {
/// The translation as the chosen map shows it (the alignment itself when it has no such map).
std::optional<SeqTranslation> mapped(const std::optional<SeqTranslation>& t, const QString& name) {
    if (!t) return t;
    for (std::size_t i = 0; i < t->maps.size(); ++i)
        if (QString::fromStdString(t->maps[i].name) == name) return withAttentionMap(*t, i);
    return t;
}
}  // namespace

// The map list follows the main model's translation; the chosen name is kept when it exists.
void SequencesPage::refillMaps() {
    // A text encoder's translation (it has an embedding) writes no tokens to attribute.
    const bool encoder = m_results2[0] && !m_results2[0]->embedding.empty();
    const QSignalBlocker block(m_map);
    const QString chosen = m_map->currentText();
    m_map->clear();
    if (m_results2[0] && !m_results2[0]->maps.empty()) {
        // The first map shown: the last cross-attention's mean, or a text encoder's last layer's.
        QString lastCrossMean, lastEncoderMean;
        for (const auto& m : m_results2[0]->maps) {
            m_map->addItem(QString::fromStdString(m.name));
            const bool mean = m.name.find(" mean") != std::string::npos;
            if (mean && m.kind == "cross") lastCrossMean = QString::fromStdString(m.name);
            if (mean && m.kind == "encoder") lastEncoderMean = QString::fromStdString(m.name);
        }
        if (lastCrossMean.isEmpty()) lastCrossMean = lastEncoderMean;
        if (!encoder) {
            m_map->insertSeparator(m_map->count());
            m_map->addItems(attributionMapNames());
        }
        m_map->setCurrentIndex(std::max(0, m_map->findText(chosen.isEmpty() || m_map->findText(chosen) < 0 ? lastCrossMean : chosen)));
    } else {
        m_map->addItem(tr("alignment"));
        m_map->insertSeparator(m_map->count());
        m_map->addItems(attributionMapNames());
        m_map->setCurrentIndex(chosen.isEmpty() ? 0 : std::max(0, m_map->findText(chosen)));  // "" is the separator's
    }
    m_map->setEnabled(m_map->count() > 1);
}

void SequencesPage::showTranslations() {
    const auto main = modelAt(0), other = modelAt(1);
    const bool encoder = main && main->asTextEncoder();
    // What the shown translation is (a new model's may still be on its way): a text encoder's has an embedding.
    const bool encoding = m_results2[0] && !m_results2[0]->embedding.empty();
    m_similarity->setVisible(encoder);
    m_evaluation->setVisible(!encoder);
    if (encoder) m_similarity->setInput(QString::fromStdString(main->path()), m_input->text());
    refillMaps();
    const bool attribution = !attributionMethodOf(m_map->currentText()).empty();
    for (int i = 0; i < 2; ++i) {
        const auto m = i == 0 ? main : other;
        // An attribution map with no model beside: the second view shows the main model's attention.
        const bool attentionBeside = i == 1 && !m && attribution && main && m_results2[0];
        m_views[i]->setVisible(m != nullptr || attentionBeside);
        if (attentionBeside) {
            m_views[1]->setTranslation(m_results2[0], seqModelName(*main) + tr(": attention"), m_errors[0]);
            continue;
        }
        if (!m) continue;
        QString title = seqModelName(*m);
        if (attribution && m_attributed[i]) {
            m_views[i]->setTranslation(m_attributed[i], title + QStringLiteral(": ") +
                                                            QString::fromStdString(attributionMethodOf(m_map->currentText())),
                                       QString());
            continue;
        }
        const auto shown = mapped(m_results2[i], m_map->currentText());
        if (attribution && m_results2[i])
            title += tr(": attention (no %1 map: %2)").arg(m_map->currentText(), m_attributionErrors[i]);
        else if (shown && m_results2[i] && !m_results2[i]->maps.empty())
            title += QStringLiteral(": ") + m_map->currentText();
        m_views[i]->setTranslation(shown, title, m_errors[i]);
    }
    QString html;
    if (!m_results2[0]) {
        html = QStringLiteral("<span style='color:#b00'>%1</span>").arg(m_errors[0].toHtmlEscaped());
    } else if (encoding) {
        html = textEncodingSummary(*m_results2[0], m_map->currentText());
    } else {
        const auto& t = *m_results2[0];
        html = tr("Output: <b style='font-size:large'>%1</b>").arg(QString::fromStdString(t.output).toHtmlEscaped());
        if (!t.finished) html += tr(" <span style='color:#b00'>(no end token within %1 steps)</span>").arg(t.tokens.size());
        if (t.hasReference)
            html += t.correct() ? tr(" &nbsp;<span style='color:#148c28'>✔ correct</span>")
                                : tr(" &nbsp;<span style='color:#c81e1e'>✘ the task's answer is %1</span>")
                                      .arg(QString::fromStdString(main->detokenize(t.reference.target)).toHtmlEscaped());
        else
            html += tr(" &nbsp;<span style='color:#777'>(no reference: %1)</span>").arg(QString::fromStdString(t.referenceError).toHtmlEscaped());
        if (!t.unknown.empty()) {
            QStringList u;
            for (const auto& x : t.unknown) u << QStringLiteral("'%1'").arg(QString::fromStdString(x).toHtmlEscaped());
            html += tr("<br><span style='color:#b06000'>Unknown to the model, read as &lt;unk&gt;: %1</span>").arg(u.join(QStringLiteral(", ")));
        }
        if (other && m_results2[1])
            html += tr("<br>Beside it: <b>%1</b>%2").arg(QString::fromStdString(m_results2[1]->output).toHtmlEscaped(),
                                                        m_results2[1]->hasReference ? (m_results2[1]->correct() ? tr(" ✔") : tr(" ✘")) : QString());
        html += attribution
                    ? tr("<br><span style='color:#555'>Rows: output tokens; columns: the input; colour: each output token's "
                         "share of its %1 over the input (rows sum to 1, as attention's). Solid outline: gold alignment.</span>")
                          .arg(m_map->currentText().toHtmlEscaped())
                    : tr("<br><span style='color:#555'>Rows: output tokens; columns: the input; colour: attention weight. "
                         "Solid outline: gold alignment; dashed: a possible one; white dot: the token a hard rule read.</span>");
    }
    m_output->setText(html);
    const int steps = m_views[0]->translation() ? int(m_views[0]->translation()->tokens.size()) : 0;
    {
        const QSignalBlocker block(m_stepSlider);
        m_stepSlider->setRange(0, std::max(0, steps - 1));
        m_stepSlider->setValue(std::min(m_stepSlider->value(), std::max(0, steps - 1)));
    }
    setStep(m_stepSlider->value());
}

void SequencesPage::setStep(int step) {
    for (auto* v : m_views) v->setStep(step);
    if (m_stepSlider->value() != step) {
        const QSignalBlocker block(m_stepSlider);
        m_stepSlider->setValue(step);
    }
    updateStepLabel();
}

void SequencesPage::updateStepLabel() {
    const int step = m_stepSlider->value();
    if (!m_results2[0] || step >= int(m_results2[0]->tokens.size())) {
        m_stepLabel->clear();
        return;
    }
    const auto& t = *m_results2[0];
    QString s = (t.embedding.empty() ? tr("Step %1 of %2: '%3'   entropy %4 nats") : tr("Piece %1 of %2: '%3'   entropy %4 nats"))
                    .arg(step + 1)  // counted from 1, as on every page
                    .arg(t.tokens.size())
                    .arg(QString::fromStdString(t.tokens[size_t(step)]))
                    .arg(t.entropy[size_t(step)], 0, 'f', 2);
    // An imported translator gives no word probabilities: nothing to list.
    if (!t.topWords[size_t(step)].empty()) s += tr("   likeliest words:");
    for (const auto& [w, p] : t.topWords[size_t(step)]) s += QStringLiteral("  %1 %2").arg(QString::fromStdString(w)).arg(p, 0, 'f', 3);
    if (!t.centre.empty()) s += tr("   local-p centre %1").arg(t.centre[size_t(step)], 0, 'f', 1);
    m_stepLabel->setText(s);
}

QString SequencesPage::outputSummary() const { return m_output->text(); }
bool SequencesPage::isBusy() const { return m_busy || m_pending || m_evaluation->running() || m_similarity->busy(); }
bool SequencesPage::evaluating() const { return m_evaluation->running(); }
QString SequencesPage::evaluationText() const { return m_evaluation->resultsText(); }
void SequencesPage::evaluate(std::int64_t limit) { m_evaluation->evaluate(limit); }
bool SequencesPage::evaluatePairs(const QString& path, std::int64_t limit) { return m_evaluation->evaluatePairs(path, limit); }

}  // namespace saccade::ui
