#pragma once
// AttentionPage: the main view. A model (bundled or opened) runs on an image (a test sample or a
// file) under a selection rule and seed; the canvas shows each step's attention, choices and
// path; the side panel shows the step's numbers; the toolbar exports. Requests go to the model
// worker; the newest one wins and the view never waits on it.

#include <QImage>
#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>
#include <optional>

#include "analysis/runs/adequacy.h"
#include "ui/file_dialogs.h"
#include "data/image.h"
#include "io/session.h"
#include "trace/output_kind.h"
#include "trace/trace.h"

class QLabel;
class QPushButton;
class QSettings;
class QSplitter;
class QTabWidget;

namespace saccade::ui {

class AdequacyMark;
class AdequacyPanel;
class AttentionCanvas;
class AttentionToolbar;
class AttributionView;
class CaptionStrip;
class CompareRunsPanel;
class DatasetComparePanel;
class ImagePanel;
class ModelPanel;
class ModelService;
class StepInfoPanel;
class StepScrubber;
struct ModelCard;

class AttentionPage : public QWidget {
    Q_OBJECT

public:
    explicit AttentionPage(QWidget* parent = nullptr);
    ~AttentionPage() override;

    /// Loads the saved model and image (or the bundled default: the soft model on test sample 0
    /// of its dataset, argmax rule) and draws the first trace when it arrives.
    void start(QSettings* settings);
    void saveSettings(QSettings& settings) const;

    /// Loads a checkpoint / an image file (also what drag and drop does).
    void openModel(const QString& path);
    void openImageFile(const QString& path);
    void openSample(const QString& dataset, qint64 index);
    bool setRule(const QString& rule);

    /// True while a model load or the newest trace is outstanding.
    bool isBusy() const;
    AttentionCanvas* canvas() const { return m_canvas; }
    StepScrubber* scrubber() const { return m_scrubber; }
    CaptionStrip* captionStrip() const { return m_caption; }
    /// The error banner above the canvas (visible while a failed model load or session is reported).
    QLabel* errorBanner() const { return m_banner; }
    /// The bar that offers Cancel while a model call runs long.
    QWidget* waitBar() const { return m_waitBar; }
    QPushButton* waitCancelButton() const { return m_waitCancel; }
    /// Shows "<b>title:</b> message" in the banner until it is dismissed or a model is asked for.
    void showBanner(const QString& title, const QString& message);
    StepInfoPanel* infoPanel() const { return m_info; }
    AttentionToolbar* toolbar() const { return m_toolbar; }
    CompareRunsPanel* runsPanel() const { return m_runs; }
    DatasetComparePanel* comparisonPanel() const { return m_comparison; }
    AdequacyPanel* adequacyPanel() const { return m_adequacy; }
    /// The "inadequate observation" mark above the canvas.
    AdequacyMark* adequacyMark() const { return m_mark; }
    ModelPanel* modelPanel() const { return m_models; }
    ImagePanel* imagePanel() const { return m_images; }
    /// Opens `model` on sample `index` of `dataset` under `rule` at `step` (from 0), as a session
    /// opens: what a dot of the atlas asks (a ViT's test image, head:K, the layer's step).
    void openAt(const QString& model, const QString& dataset, qint64 index, const QString& rule, int step);
    /// What the window's menus and presentation mode ask of the page (the shell reaches no panel).
    void openModelDialog();
    void openImageDialog();
    /// The canvas's line widths times `scale` (2 in presentation mode).
    void setLineScale(double scale);
    /// The dataset the Dataset tab compares on (the report measures the same one).
    QString comparisonDataset() const;
    /// The map chooser and the map beside the attention.
    AttributionView* attributionView() const { return m_attribution; }
    /// The panes the view shows, left to right (the attention, a map beside it): what Export >
    /// View writes.
    QList<const AttentionCanvas*> shownCanvases() const;
    /// The folder of the bundled models ("" when not found).
    QString bundledFolder() const { return m_bundledFolder; }

    /// What a session file records of this page (model path, image, rule, seed, step, overlays,
    /// tab); the model's CRC-32 and the page, notes are the caller's.
    /// Empty on success, else why the page cannot be stored (no trace yet; a probe from the
    /// Probes page, which is neither a dataset sample nor a file).
    QString captureSession(Session& session) const;
    /// Reopens a session: rule, seed, overlays and tab at once, then the model, its image and the
    /// step as they arrive (the model must already have passed checkSessionModel).
    void openSession(const Session& session);

    /// Asks where to write the view as PNG and writes it (the Export menu, Ctrl+S).
    void exportViewAsPng();

    /// Shows a probe image (from a boundary sweep) and runs the sweep's `runs` sampled runs of it
    /// (seeds seed..seed+runs-1, as the sweep ran them) on the Runs tab.
    void openProbe(const Image& image, const QString& id, const GroundTruth& truth, int runs, quint64 seed);

Q_SIGNALS:
    void statusMessage(const QString& message);
    /// A model was loaded: its checkpoint and dataset.
    /// A model opened: its file, dataset, rule names (ModelCard::rules), deterministic rule and
    /// what its runs output ("class" or "caption"), and the maps it gives (ModelCard::maps).
    void modelOpened(const QString& checkpoint, const QString& dataset, const QStringList& rules,
                     const QString& deterministicRule, saccade::OutputKind outputKind,
                     const QList<QPair<QString, QString>>& maps);
    /// An image of a folder the user opened (FOLDER/CLASS/IMAGE.png) is on the canvas: the model's
    /// other views may measure that folder.
    void folderInUse(const QString& folder);
    /// A sequence model (text in, text out) was asked for: it belongs on the Sequences page.
    void sequenceModelRequested(const QString& checkpoint);

protected:
    /// Keeps the floating banner across the canvas's top as the canvas resizes.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// What a session and openAt share: `model` opened on sample `index` of `dataset` (or the
    /// input file already set) under `rule` at `step`, with `runs` sampled once the sample is there.
    void openAs(const QString& model, const QString& dataset, qint64 index, const QString& rule, int step, int runs);
    void onModelLoaded(const ModelCard& card);
    void onTrace(const Trace& trace, const Image& image, double ms);
    void showError(const QString& message);
    void buildWaitBar();
    QStringList m_shownClasses;  ///< the class names of the model the shown image's truth was read for
    /// The banner floats over the canvas's top edge, so showing it moves nothing.
    void placeBanner();
    void setInput(const Image& image, const QString& id, const std::optional<GroundTruth>& truth);
    void requestTrace();
    /// Drops the shown run set and its visits (the input or the model changed).
    void forgetRuns();
    /// Every model load goes through here.
    void loadModel(const QString& path, const QString& device);
    /// The image on the canvas fitted to a model of another size (its boxes with it); false when
    /// there is none or it cannot be fitted.
    bool refitInput(const ModelCard& card);
    void buildTabs();
    void buildLayout();
    void addShortcuts();
    void connectViews();
    void connectModels();
    void connectRuns();
    void connectComparison();
    void connectAdequacy();
    /// Shows or hides the inadequate-observation mark for the current input.
    void updateAdequacyMark();
    void exportAs(int what);

    ModelService* m_service = nullptr;
    AttentionToolbar* m_toolbar = nullptr;
    CompareRunsPanel* m_runs = nullptr;
    DatasetComparePanel* m_comparison = nullptr;
    AdequacyPanel* m_adequacy = nullptr;
    AdequacyMark* m_mark = nullptr;
    AttentionCanvas* m_canvas = nullptr;
    StepScrubber* m_scrubber = nullptr;
    CaptionStrip* m_caption = nullptr;
    QLabel* m_banner = nullptr;  ///< a model that failed to open, until the next request
    QWidget* m_waitBar = nullptr;  ///< a model call running longer than kWaitBarSeconds, with Cancel
    QLabel* m_waitText = nullptr;
    QPushButton* m_waitCancel = nullptr;
    static constexpr double kWaitBarSeconds = 3;
    StepInfoPanel* m_info = nullptr;
    ModelPanel* m_models = nullptr;
    ImagePanel* m_images = nullptr;
    AttributionView* m_attribution = nullptr;
    QString m_shownModel;  ///< the model whose card was last shown (a new one opens under its training rule)
    QString m_restoredRule;  ///< the rule saved with the saved model, applied once it has loaded
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    QString m_bundledFolder;
    int m_exportScale = 0;   ///< the last image export's scale (0: auto) and caption choice
    bool m_exportCaptionOn = true;

    // The input the traces run on.
    std::optional<Image> m_input;
    QString m_inputId;
    std::optional<GroundTruth> m_truth;
    QString m_inputDataset;  ///< the sample's dataset, empty for a file
    qint64 m_inputIndex = -1;
    // The test sample last asked for (openSample, or the input openAt/openAs will ask for): a
    // sample that arrives for an earlier request is stale and dropped. Unset after an image
    // file or a probe replaced the input.
    std::optional<QPair<QString, qint64>> m_awaitedSample;
    QString m_inputFile;
    bool m_awaitingFirst = false;  ///< no trace (and no error) since start()
    std::optional<Trace> m_trace;
    /// The signals of the Runs tab's set for the current input, with its run count and seed.
    struct RunAdequacy {
        AdequacyValues values;
        int runs = 0;
        quint64 seed = 0;
    };
    std::optional<RunAdequacy> m_runAdequacy;
    int m_pendingRuns = 0;
    /// The seed of a run loaded from the Runs tab: while the toolbar shows it, Run repeats the
    /// shown set (its first seed), not a set starting at the loaded run.
    std::optional<int> m_pendingStep;  ///< a session's step, applied to its first trace
    QString m_sessionModel;            ///< a session's model: when it loads, the session's image opens
    QString m_sessionRule;             ///< and its rule is set again (the old model may not have offered it)
    bool m_stepArmed = false;          ///< the session's model is loaded: the next trace takes the step
    std::optional<quint64> m_loadedRunSeed;  ///< runs to start once the requested sample arrives (opened from Adequacy)
    Image m_traceImage;
};

}  // namespace saccade::ui
