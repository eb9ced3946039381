#pragma once
// ModelService: the loaded model and the datasets live on a worker thread of their own; the GUI
// thread sends requests and gets value types back (model cards, traces, samples, predictions).
// LibTorch state never crosses threads. A newer trace request supersedes older ones that have
// not started, and results of superseded requests are dropped.

#include <QObject>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QVector>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "analysis/runs/adequacy.h"
#include "analysis/attribution/attribution.h"
#include "analysis/runs/dataset_comparison.h"
#include "analysis/runs/rule_comparison.h"
#include "common/progress.h"
#include "trace/output_kind.h"
#include "trace/run_set.h"
#include "data/image.h"
#include "data/image_fit.h"
#include "models/input_overrides.h"
#include "data/sample.h"
#include "trace/trace.h"

namespace saccade {
class AttentionModel;
}

namespace saccade::ui {

/// What the GUI shows about a loaded model (from its sidecar).
struct ModelCard {
    QString path, name, type, mode, variant, dataset, device, scorer, gitRevision, command;
    saccade::OutputKind outputKind = saccade::OutputKind::Class;  ///< what a run outputs (AttentionModel::outputKind)
    saccade::TrainingMode trainedMode = saccade::TrainingMode::Imported;  ///< how it learnt (`mode` names it)
    bool imported = false;  ///< opened from a file with no Saccade sidecar (TorchScript)
    QString weightsCrc32;  ///< of the weights file (imported models: of the TorchScript file)
    int imageSize = 0, channels = 1, grid = 0, steps = 0;
    qint64 iterations = 0;
    quint64 seed = 0;
    QStringList classNames;
    QString metricsJson;  ///< the sidecar's metrics object
    QString summary;      ///< the model's one-line description of its architecture
    QString deterministicRule = QStringLiteral("argmax");  ///< argmax (patch) or mean (RAM)
    QString trainingRule = QStringLiteral("argmax");  ///< the rule it opens under (AttentionModel::trainingRule)
    QStringList rules;    ///< the rule names it accepts (see AttentionToolbar::setAvailableRules)
    /// The K a counted rule takes on this model (head: 0 to heads-1; topk: 1 to the cells); a rule
    /// not listed takes the toolbar's own range.
    QHash<QString, QPair<int, int>> ruleRanges;
    ImageFit fit;           ///< how an image of another size becomes its input (AttentionModel::imageFit)
    QString preprocessing;  ///< the fit and the normalisation, in words (AttentionModel::preprocessing)
    InputOverrides input;   ///< what the user set over the model's own preprocessing
    /// Every map of analysis/image_maps.h (mapMethods(), in order) and why the model does not give
    /// it: checkMapMethod's line, empty when it does.
    QList<QPair<QString, QString>> maps;
};

struct TraceRequest {
    Image image;
    std::string rule = "argmax";
    std::uint64_t seed = 1;
    std::string imageId;
    std::optional<GroundTruth> truth;
    /// Also trace this rule on the same image (a captioner's beam beside its greedy caption):
    /// companionReady follows traceReady (the service stays busy until then). Empty: none.
    std::string companionRule;
};

/// N seeded sample-rule runs of one image (run i has seed + i), with the deterministic, soft and
/// ksample traces.
struct RunsRequest {
    Image image;
    int runs = 100;
    std::uint64_t seed = 1;
    int kSample = 10;
    std::string imageId;
    std::optional<GroundTruth> truth;
};

/// One test-split sample for the image browser, with the model's answers under two rules.
struct BrowsedSample {
    qint64 index = -1;
    Image image;
    int label = -1;
    /// The deterministic rule's answer (argmax, or the mean for RAM) and the sample rule's; -1
    /// until predicted.
    int argmaxLabel = -1, sampleLabel = -1;
    /// Captioners: the two rules' captions and whether each is one of the image's valid captions.
    bool caption = false;
    QString argmaxText, sampleText;
    bool argmaxValid = false, sampleValid = false;
};

class ModelService : public QObject {
    Q_OBJECT

public:
    explicit ModelService(QObject* parent = nullptr);
    /// Stops the worker after the job it is running (jobs are short: a trace, a few samples).
    ~ModelService() override;

    /// Loads a checkpoint on `device` ("auto", "cpu", "cuda:N"); replaces the current model on
    /// success only. Emits modelLoaded or modelFailed.
    /// `input`: the user's resize, crop and normalisation over the model's own (the Model tab).
    void loadModel(const QString& path, const QString& device = QStringLiteral("auto"), const InputOverrides& input = {});
    /// Queues a trace; any older trace request that has not started is dropped. Emits
    /// traceReady or traceFailed for the newest request only.
    void requestTrace(const TraceRequest& request);
    /// Queues test samples [first, first + count) of `dataset` with the current model's
    /// deterministic-rule and sample (seed 1) answers; a newer request drops an older one. Emits samplesReady in
    /// chunks as they are computed, or samplesFailed.
    void requestSamples(const QString& dataset, qint64 first, int count);
    /// Sample `index` of the test split of `dataset`. Emits sampleReady or samplesFailed.
    void requestSample(const QString& dataset, qint64 index);

    /// Queues a run set; after every chunk of 1,000 runs but the last emits runsProgress and
    /// runsPartial (the runs so far and their statistics), then runsReady or runsFailed. A newer
    /// request, or cancelRuns(), stops an older one after its current chunk.
    void requestRuns(const RunsRequest& request);
    void cancelRuns();

    /// Queues a comparison of every rule on the first `limit` test images of `dataset`
    /// (defaultComparisonRules; seed for the stochastic rules); emits comparisonProgress, then
    /// comparisonReady or comparisonFailed. A model without sampled runs has its rules compared
    /// instead (analysis/rule_comparison.h): ruleComparisonReady. A newer request, or
    /// cancelComparison(), stops it.
    void requestComparison(const QString& dataset, qint64 limit, quint64 seed);
    void cancelComparison();

    /// Queues an adequacy measurement on the test split of `dataset` (measureAdequacy); emits
    /// adequacyProgress, then adequacyReady or adequacyFailed. A newer request, or
    /// cancelAdequacy(), stops it.
    void requestAdequacy(const QString& dataset, const AdequacyOptions& options);
    void cancelAdequacy();
    /// Queues an attribution map of `image` (analysis/attribution.h); a newer request drops an
    /// older one that has not started. Emits attributionReady or attributionFailed.
    void requestAttribution(const Image& image, const std::optional<GroundTruth>& truth, const AttributionOptions& options);

    /// Gives up on the model call running now (a load or a trace that does not return: an imported
    /// model whose forward loops): its thread is left to finish or to end with the process, and a
    /// fresh worker takes the requests. A stuck load keeps the previous model; a stuck trace drops
    /// the model that hung. Emits modelFailed saying so. Nothing happens when no call is running.
    void cancelModelWork();
    /// Seconds the running model call has taken so far (0 when none runs), and what it is.
    double busySeconds() const;
    QString busyWith() const;
    /// Model calls running now on any worker, abandoned ones included. The GUI's main() ends the
    /// process at once when some are left after the window closed, instead of waiting on them.
    static int callsRunning();

    bool hasModel() const { return m_card.has_value(); }
    const std::optional<ModelCard>& card() const { return m_card; }
    /// True while a model load or the newest trace request is outstanding.
    bool isBusy() const { return m_loading || m_tracePending; }

Q_SIGNALS:
    void modelLoaded(const saccade::ui::ModelCard& card);
    void modelFailed(const QString& message);
    void traceReady(const saccade::Trace& trace, const saccade::Image& image, double milliseconds);
    void traceFailed(const QString& message);
    /// The companion rule's trace of the request whose traceReady came last; a trace without a
    /// rule when that rule failed.
    void companionReady(const saccade::Trace& trace);
    void samplesReady(const QString& dataset, const QVector<saccade::ui::BrowsedSample>& samples,
                      qint64 datasetSize);
    void sampleReady(const QString& dataset, qint64 index, const saccade::Sample& sample);
    void samplesFailed(const QString& message);
    void runsProgress(int done, int total);
    void runsPartial(const saccade::RunSet& set, const saccade::RunStats& stats, int total);
    void runsReady(const saccade::RunSet& set, const saccade::RunStats& stats);
    void runsFailed(const QString& message);
    void comparisonProgress(double fraction);
    void comparisonReady(const saccade::DatasetComparison& comparison, const QString& dataset);
    void ruleComparisonReady(const saccade::RuleComparison& comparison, const QString& dataset);
    void comparisonFailed(const QString& message);
    void adequacyProgress(double fraction);
    void adequacyReady(const saccade::AdequacyReport& report, const QString& dataset);
    void adequacyFailed(const QString& message);
    void attributionReady(const saccade::AttributionMap& map);
    void attributionFailed(const QString& message);

private:
    struct WorkerState;
    enum class Call { Load, Trace, Other };
    /// Runs `job` on the worker thread.
    void post(std::function<void(WorkerState&)> job, Call kind = Call::Other);
    /// Starts a worker thread with a fresh state holding `model`.
    void startWorker(std::shared_ptr<AttentionModel> model);
    /// Leaves the running worker to itself (its replies are dropped) and starts another.
    void abandonWorker(std::shared_ptr<AttentionModel> keep);
    /// Runs `reply` on this object's thread (dropped if this object is gone).
    void reply(std::function<void()> reply);
    /// The newest trace request not yet run: the queued job runs it, unless a dataset job ran it
    /// first between two of its steps (so the canvas stays live during long measurements).
    struct TraceMailbox {
        std::mutex mutex;
        std::optional<TraceRequest> request;
        quint64 generation = 0;
    };
    /// Runs the mailbox's request (the worker's own mailbox), if any, on the worker thread and
    /// replies with its trace.
    void serveTrace(WorkerState& state);
    /// A job over a dataset on the worker, superseded when `gen` moves on: opens `dataset`, runs
    /// `work` (which returns an error, empty on success) with a progress callback that forwards to
    /// `onProgress` and stops once superseded, then calls `done` with the error on this thread.
    void postDatasetJob(const QString& dataset, std::shared_ptr<std::atomic<quint64>> gen,
                        std::function<QString(WorkerState&, const Dataset&, const Progress&)> work,
                        std::function<void(double)> onProgress, std::function<void(const QString&)> done);

    QThread* m_thread = nullptr;   ///< left running (and leaked) when abandoned
    QObject* m_context = nullptr;  ///< lives on m_thread; jobs are queued to it
    std::shared_ptr<WorkerState> m_state;
    quint64 m_epoch = 0;  ///< bumped when a worker is abandoned: its late replies are dropped
    std::shared_ptr<AttentionModel> m_model;  ///< the loaded model, as the GUI thread last heard of it
    std::shared_ptr<std::atomic<quint64>> m_traceGeneration;
    std::shared_ptr<std::atomic<quint64>> m_samplesGeneration;
    std::shared_ptr<std::atomic<quint64>> m_runsGeneration;
    std::shared_ptr<std::atomic<quint64>> m_comparisonGeneration;
    std::shared_ptr<std::atomic<quint64>> m_adequacyGeneration;
    std::shared_ptr<std::atomic<quint64>> m_attributionGeneration;
    std::optional<ModelCard> m_card;
    bool m_loading = false;
    bool m_tracePending = false;
};

}  // namespace saccade::ui
