// What the Sequences page writes and reads back: its exports (the matrix as PNG, SVG and CSV, the
// trace as JSON, the playback as a GIF) and its part of a session.
#include "ui/sequences/sequences_page.h"

#include <QComboBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>

#include "common/atomic_file.h"
#include "data/image_io.h"
#include "render/alignment_render.h"
#include "render/gif_writer.h"
#include "models/text_encoder.h"
#include "ui/sequences/similarity_panel.h"
#include "trace/seq_trace_json.h"
#include "ui/file_dialogs.h"
#include "ui/sequences/alignment_view.h"

namespace saccade::ui {

std::optional<SessionSequences> SequencesPage::captureSession() const {
    const auto main = modelAt(0);
    if (!main) return std::nullopt;
    SessionSequences s;
    s.model = QFileInfo(QString::fromStdString(main->path())).absoluteFilePath().toStdString();
    if (const auto other = modelAt(1)) s.compare = QFileInfo(QString::fromStdString(other->path())).absoluteFilePath().toStdString();
    s.text = m_input->text().toStdString();
    s.rule = m_rule->currentData().toString().toStdString();
    s.seed = std::uint64_t(m_seed->value());
    s.step = m_stepSlider->value();
    if (m_map->isEnabled() && m_map->count() > 0) s.map = m_map->currentText().toStdString();
    s.headView = m_mode->currentIndex() == 1;
    if (main->asTextEncoder()) s.compareWith = m_similarity->other().toStdString();
    return s;
}

bool SequencesPage::openSession(const SessionSequences& s) {
    if (!openModel(QString::fromStdString(s.model), 0)) return false;
    if (s.compare.empty())
        m_compare->setCurrentIndex(0);
    else if (!openModel(QString::fromStdString(s.compare), 1))
        return false;
    setRule(QString::fromStdString(s.rule));
    m_seed->setValue(int(std::min<std::uint64_t>(s.seed, std::uint64_t(m_seed->maximum()))));
    setText(QString::fromStdString(s.text));
    waitForIdle();  // the map list and the step range come with the translation
    if (!s.map.empty()) setMap(QString::fromStdString(s.map));
    setHeadView(s.headView);
    setStep(std::min(s.step, m_stepSlider->maximum()));
    if (!s.compareWith.empty()) m_similarity->setOther(QString::fromStdString(s.compareWith));
    return true;
}

void SequencesPage::exportAs(const QString& kind) {
    const auto path = saveFileDialog(this, tr("Export"), QStringLiteral("alignment.") + kind,
                                                   kind.toUpper() + QStringLiteral(" (*.") + kind + QLatin1Char(')'));
    if (!path.isEmpty()) exportFile(path);
}

bool SequencesPage::exportFile(const QString& path) {
    const auto main = modelAt(0);
    if (!main || !m_results2[0]) {
        Q_EMIT statusMessage(tr("Nothing to export: no translation shown"));
        return false;
    }
    const auto& t = m_views[0]->translation() ? *m_views[0]->translation() : *m_results2[0];  // as shown
    const auto suffix = QFileInfo(path).suffix().toLower();
    const std::string file = path.toStdString();
    AlignmentRenderOptions o;
    o.caption = alignmentCaption(t);
    Result<Unit> written = Error{"unknown export type '." + suffix.toStdString() + "' (use .png, .svg, .csv, .json or .gif)"};
    if (suffix == QLatin1String("png"))
        written = saveImagePng(m_mode->currentIndex() == 1 ? renderHeadView(t, o) : renderAlignment(t, o), file);
    else if (suffix == QLatin1String("svg")) written = writeFileAtomic(file, alignmentSvg(t, o));
    else if (suffix == QLatin1String("csv")) written = writeFileAtomic(file, seqAlignmentToCsv(t));
    else if (suffix == QLatin1String("json"))
        written = writeFileAtomic(file, seqTranslationToJson(*m_results2[0], main->path(), main->taskName()) + "\n");
    else if (suffix == QLatin1String("gif")) written = writeGif(renderAlignmentFrames(t, o), 80, file);
    Q_EMIT statusMessage(written ? tr("Wrote %1").arg(path) : QString::fromStdString(written.error()));
    return written.ok();
}

}  // namespace saccade::ui
