#include "ui/length/length_page.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <memory>

#include "ui/analysis_job.h"
#include "ui/length/length_figure_view.h"
#include "render/length_render.h"
#include "ui/view_export.h"

namespace saccade::ui {
namespace {

/// What each variant is, in one line, for the notes under the figure.
QString variantNote(AttentionVariant v) {
    switch (v) {
        case AttentionVariant::Full: return QObject::tr("exact attention holding the whole n x n matrix");
        case AttentionVariant::MemoryEfficient:
            return QObject::tr("exact attention tile by tile with an online softmax (FlashAttention's algorithm): the "
                               "same numbers without the n x n matrix");
        case AttentionVariant::Local: return QObject::tr("each query sees the keys within the window");
        case AttentionVariant::BlockSparse:
            return QObject::tr("the Sparse Transformer's fixed pattern: its own block and the last keys of every block");
        case AttentionVariant::TopK:
            return QObject::tr("the k best-scoring keys per query, renormalised: a deterministic selection. Hard "
                               "attention instead draws one key from the distribution, a different procedure");
        case AttentionVariant::Linear: return QObject::tr("kernel attention with elu(x) + 1 features (Katharopoulos et al.)");
        case AttentionVariant::Performer: return QObject::tr("FAVOR+ positive random features (Choromanski et al.)");
    }
    return {};
}

}  // namespace

LengthPage::LengthPage(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lengthPage"));
    m_job = new AnalysisJob(this);
    m_figure = new LengthFigureView(this);
    m_notes = new QLabel(tr("Pick a variant and a length, then Measure."), this);
    m_notes->setObjectName(QStringLiteral("lengthNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* right = new QVBoxLayout;
    right->addWidget(m_figure, 1);
    right->addWidget(m_notes);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(buildControls());
    layout->addLayout(right, 1);
    bindJobControls(m_job, m_run, m_cancel, m_progress, m_notes);
    connect(m_run, &QPushButton::clicked, this, [this] { measure(); });
    // A figure shown always belongs to the request that made it: none after a cancel or a failure.
    connect(m_cancel, &QPushButton::clicked, this, [this] { m_figure->clear(tr("Cancelled: nothing measured.")); });
    connect(m_job, &AnalysisJob::failed, this, [this] { m_figure->clear(tr("Not measured (the reason is below).")); });
    connect(m_variant, &QComboBox::currentIndexChanged, this, [this] { updateEnabled(); });
    updateEnabled();
}

QSpinBox* LengthPage::addSpin(QFormLayout* form, const QString& label, const QString& name, int lo, int hi, int value,
                              const QString& tip) {
    auto* spin = new QSpinBox(this);
    spin->setObjectName(name);
    spin->setRange(lo, hi);
    spin->setValue(value);
    spin->setToolTip(tip);
    spin->setGroupSeparatorShown(true);
    form->addRow(label, spin);
    return spin;
}

QWidget* LengthPage::buildControls() {
    auto* box = new QWidget(this);
    box->setFixedWidth(250);
    auto* form = new QFormLayout;
    m_variant = new QComboBox(box);
    m_variant->setObjectName(QStringLiteral("lengthVariant"));
    for (auto v : allAttentionVariants())
        m_variant->addItem(QString::fromStdString(attentionVariantName(v)), int(v));
    m_variant->setCurrentIndex(int(AttentionVariant::Local));
    form->addRow(tr("Variant"), m_variant);
    const VariantOptions d;
    m_n = addSpin(form, tr("Length n"), QStringLiteral("lengthN"), 16, 65536, 4096, tr("queries and keys"));
    m_window = addSpin(form, tr("Window"), QStringLiteral("lengthWindow"), 1, 65536, int(d.window), tr("local: keys within this distance"));
    m_block = addSpin(form, tr("Block"), QStringLiteral("lengthBlock"), 1, 65536, 128, tr("block_sparse: block length"));
    m_summary = addSpin(form, tr("Summary keys"), QStringLiteral("lengthSummary"), 1, 65536, 8,
                        tr("block_sparse: the last keys of every block, seen by every query"));
    m_k = addSpin(form, tr("k"), QStringLiteral("lengthK"), 1, 65536, int(d.topK), tr("top_k: keys kept per query"));
    m_features = addSpin(form, tr("Features"), QStringLiteral("lengthFeatures"), 1, 65536, int(d.features), tr("performer: random features"));
    m_featureSeed = addSpin(form, tr("Feature seed"), QStringLiteral("lengthFeatureSeed"), 0, 1 << 30, 0, tr("performer: their seed"));
    m_tile = addSpin(form, tr("Tile"), QStringLiteral("lengthTile"), 1, 65536, int(d.tile), tr("memory_efficient, top_k: rows per tile"));
    m_heads = addSpin(form, tr("Heads"), QStringLiteral("lengthHeads"), 1, 64, 1, tr("heads of random queries, keys and values"));
    m_dim = addSpin(form, tr("Head width"), QStringLiteral("lengthDim"), 1, 1024, 64, tr("width of each head"));
    m_seed = addSpin(form, tr("Seed"), QStringLiteral("lengthSeed"), 0, 1 << 30, 0, tr("seed of the queries, keys and values"));
    m_inputs = new QComboBox(box);
    m_inputs->setObjectName(QStringLiteral("lengthInputs"));
    m_inputs->addItem(tr("positional"), true);
    m_inputs->addItem(tr("random"), false);
    m_inputs->setToolTip(tr("positional: queries and keys share a position code, so attention peaks near the diagonal "
                            "as over real sequences; random: independent normal entries, so attention is flat"));
    form->addRow(tr("Inputs"), m_inputs);
    m_run = new QPushButton(tr("Measure"), box);
    m_run->setObjectName(QStringLiteral("lengthMeasure"));
    m_cancel = new QPushButton(tr("Cancel"), box);
    m_cancel->setObjectName(QStringLiteral("lengthCancel"));
    m_cancel->setEnabled(false);
    m_progress = new QProgressBar(box);
    m_progress->setRange(0, 1000);
    const QString filters[] = {tr("PNG (*.png)"), tr("SVG (*.svg)"), tr("CSV (*.csv)"), tr("JSON (*.json)")};
    QList<ExportItem> items;
    for (const auto& [title, file, filter] :
         {std::tuple{tr("Export the figure as PNG"), QStringLiteral("length.png"), filters[0]},
          std::tuple{tr("Export the figure as SVG"), QStringLiteral("length.svg"), filters[1]},
          std::tuple{tr("Export the cost curves as CSV"), QStringLiteral("length-curves.csv"), filters[2]},
          std::tuple{tr("Export the view as JSON"), QStringLiteral("length.json"), filters[3]}})
        items.push_back({title, file, filter, [this](const QString& p) { return exportTo(p); }});
    // The error per query is its own table (one header per CSV file).
    items.push_back({tr("Export the error per query as CSV"), QStringLiteral("length-queries.csv"), filters[2], [this](const QString& p) {
                         if (!m_figure->view()) return tr("nothing to export: nothing measured yet");
                         return writeFileAtomically(p, QByteArray::fromStdString(lengthRowsToCsv(*m_figure->view())));
                     }});
    m_export = makeExportButton(box, items);
    m_export->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_export);
    auto* column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->addLayout(form);
    column->addLayout(buttons);
    column->addWidget(m_progress);
    column->addStretch();
    return box;
}

void LengthPage::updateEnabled() {
    const auto v = AttentionVariant(m_variant->currentData().toInt());
    m_window->setEnabled(v == AttentionVariant::Local);
    m_block->setEnabled(v == AttentionVariant::BlockSparse);
    m_summary->setEnabled(v == AttentionVariant::BlockSparse);
    m_k->setEnabled(v == AttentionVariant::TopK);
    m_features->setEnabled(v == AttentionVariant::Performer);
    m_featureSeed->setEnabled(v == AttentionVariant::Performer);
    m_tile->setEnabled(v == AttentionVariant::MemoryEfficient || v == AttentionVariant::TopK);
}

LengthViewOptions LengthPage::request() const {
    LengthViewOptions o;
    o.variant = AttentionVariant(m_variant->currentData().toInt());
    o.n = m_n->value();
    o.options.window = m_window->value();
    o.options.block = m_block->value();
    o.options.summary = m_summary->value();
    o.options.topK = m_k->value();
    o.options.features = m_features->value();
    o.options.seed = std::uint64_t(m_featureSeed->value());
    o.options.tile = m_tile->value();
    o.heads = m_heads->value();
    o.dim = m_dim->value();
    o.seed = std::uint64_t(m_seed->value());
    o.positional = m_inputs->currentData().toBool();
    return o;
}

void LengthPage::select(AttentionVariant variant, int n) {
    m_variant->setCurrentIndex(m_variant->findData(int(variant)));
    m_n->setValue(n);
}

bool LengthPage::measure() {
    const auto o = request();
    if (const auto problem = checkLengthView(o); !problem.empty()) {
        m_figure->clear(tr("Not measured: this request does not fit (the reason is below)."));
        m_export->setEnabled(false);
        m_notes->setText(QStringLiteral("<span style='color:#b00020'>%1</span>").arg(QString::fromStdString(problem).toHtmlEscaped()));
        return false;
    }
    m_measuredOnce = true;
    m_figure->clear(tr("Measuring…"));  // the figure shown belonged to the previous request
    m_export->setEnabled(false);
    auto result = std::make_shared<LengthView>();
    auto work = [o, result](const Progress& progress) -> QString {
        auto r = computeLengthView(o, progress);
        if (!r) return QString::fromStdString(r.error());
        *result = std::move(r).value();
        return {};
    };
    return m_job->startShown(work, [this, result] { showResult(*result); },
                             tr("Measuring %1 at n = %2 and its cost curve…")
                                 .arg(QString::fromStdString(attentionVariantName(o.variant)))
                                 .arg(o.n));
}

void LengthPage::showResult(const LengthView& view) {
    m_figure->setView(view);
    m_export->setEnabled(true);
    // A slope only where one was fitted (length_view.h: curveSlope); else why not.
    auto growth = [](const std::optional<double>& s, const std::string& why, const QString& who) {
        return s ? tr("%1 grows as n<sup>%2</sup>").arg(who, QString::number(*s, 'f', 2))
                 : tr("%1: no slope (%2)").arg(who, QString::fromStdString(why.empty() ? "not measured" : why));
    };
    const bool full = view.request.variant == AttentionVariant::Full;
    m_notes->setText(
        tr("<b>%1</b>: %2. %3 keys per query; total variation from exact attention %4 on average (max %5), top-1 "
           "agreement %6%. %7; %8; the matrix product runs at %9 GFLOP/s here.")
            .arg(QString::fromStdString(attentionVariantName(view.request.variant)), variantNote(view.request.variant))
            .arg(view.keysPerQuery, 0, 'f', 1)
            .arg(view.meanTv, 0, 'f', 3)
            .arg(view.maxTv, 0, 'f', 3)
            .arg(100 * view.top1Agreement, 0, 'f', 1)
            .arg(growth(view.slope, view.slopeNote, tr("Time")),
                 growth(full ? view.slope : view.fullSlope, full ? view.slopeNote : view.fullSlopeNote, tr("full attention's time")))
            .arg(view.matmulGflops, 0, 'f', 0));
}

bool LengthPage::isRunning() const { return m_job->isRunning(); }
QString LengthPage::notesText() const { return m_notes->text(); }

QString LengthPage::exportTo(const QString& path) const {
    if (!m_figure->view()) return tr("nothing to export: nothing measured yet");
    const auto format = lengthViewFormat(path.toStdString());
    if (!format) return QString::fromStdString(format.error());
    const auto bytes = lengthViewBytes(*m_figure->view(), *format, std::max(m_figure->width(), 1200),
                                       std::max(m_figure->height(), 420));
    return writeFileAtomically(path, QByteArray::fromStdString(bytes));
}

void LengthPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!m_measuredOnce && !m_job->isRunning()) measure();
}

}  // namespace saccade::ui
