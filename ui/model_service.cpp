#include "ui/model_service.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QPointer>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <utility>

#include "analysis/attribution/image_maps.h"
#include "data/dataset.h"
#include "models/attention_model.h"
#include "trace/ground_truth.h"
#include "models/model_family.h"
#include "data/folder_dataset.h"
#include "models/model_input.h"
#include "train/train_loop.h"

namespace saccade::ui {

namespace {
qint64 nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
}  // namespace

// Touched only on the worker thread, but for the mailbox (its own mutex) and the call clock.
struct ModelService::WorkerState {
    std::shared_ptr<AttentionModel> model;
    std::map<std::string, std::shared_ptr<const Dataset>> datasets;
    std::shared_ptr<TraceMailbox> mailbox = std::make_shared<TraceMailbox>();
    /// The running call's last sign of life: its start, then each image or step of a job over a
    /// dataset (0: none runs). A model that hangs stops giving them.
    std::atomic<qint64> callStartedMs{0};
    std::atomic<int> call{0};  ///< the running call's Call
    void alive() { callStartedMs = nowMs(); }

    Result<std::shared_ptr<const Dataset>> dataset(const std::string& name) {
        if (auto it = datasets.find(name); it != datasets.end()) return it->second;
        // An image folder is labelled by the current model's class names and fitted to its input:
        // opened anew each time. A dataset of another size is fitted too (the cache holds this model's).
        if (isImageFolder(name)) return model ? openDatasetFor(*model, name, 1) : openDataset(name);
        auto opened = model ? openDatasetFor(*model, name, 1) : openDataset(name);
        if (opened) datasets[name] = *opened;
        return opened;
    }
};

namespace {

constexpr int kSamplesPerChunk = 16;

std::atomic<int> g_callsRunning{0};       ///< on every worker, abandoned ones included
thread_local quint64 t_jobEpoch = 0;      ///< the epoch of the worker running this thread's job
thread_local bool t_inJob = false;


ModelCard makeCard(const QString& path, AttentionModel& model) {
    const auto& info = model.info();
    ModelCard card;
    card.path = path;
    card.type = QString::fromStdString(info.modelType);
    card.outputKind = model.outputKind();
    const ModelFamily* family = findFamily(info.modelType);
    card.imported = family && family->opensImports;
    card.mode = QString::fromStdString(trainingModeName(model.trainedMode()));
    card.trainedMode = model.trainedMode();
    card.dataset = QString::fromStdString(info.dataset);
    card.device = QString::fromStdString(model.deviceName());
    card.gitRevision = QString::fromStdString(info.gitRevision);
    card.weightsCrc32 = QString::fromStdString(info.weightsCrc32);
    card.command = QString::fromStdString(info.command);
    if (!info.command.empty() && !info.earlierSchedules.empty()) {  // resumed to other totals: the runs it took
        auto schedules = info.earlierSchedules;
        schedules.emplace_back(info.iteration, info.totalIterations);
        const std::string out = std::filesystem::path(path.toStdString()).filename().string();
        card.command = QString::fromStdString(recreateRecipe(info.command, "train " + info.modelType, out, "", schedules));
    }
    card.imageSize = model.imageSize();
    card.channels = model.channels();
    card.steps = model.steps();
    card.iterations = info.iteration;
    card.seed = info.seed;
    for (const auto& name : model.classNames()) card.classNames << QString::fromStdString(name);
    card.metricsJson = QString::fromStdString(info.metricsJson);
    card.summary = QString::fromStdString(model.summary());
    card.deterministicRule = QString::fromStdString(model.deterministicRule());
    card.trainingRule = QString::fromStdString(model.trainingRule());
    const CellGrid cells = model.cellGrid();
    card.grid = cells.side;
    card.scorer = QString::fromStdString(cells.scorer);
    card.variant = QString::fromStdString(cells.variant);
    const RuleMenu menu = model.ruleMenu();
    for (const auto& rule : menu.rules) card.rules << QString::fromStdString(rule);
    for (const auto& [rule, range] : menu.ranges) card.ruleRanges[QString::fromStdString(rule)] = {range.first, range.second};
    card.fit = model.imageFit();
    card.preprocessing = QString::fromStdString(model.preprocessing());
    card.name = QString::fromStdString(model.displayName());
    for (const auto& map : mapMethods()) {
        const auto gives = checkMapMethod(model, map);
        card.maps.append({QString::fromStdString(map), gives ? QString() : QString::fromStdString(gives.error())});
    }
    card.name += QStringLiteral(" (%1)").arg(QFileInfo(path).fileName());  // two models of one kind differ by file
    return card;
}

QString errorText(const std::exception& e) {
    return QStringLiteral("internal error: %1").arg(QString::fromUtf8(e.what()));
}

}  // namespace

ModelService::ModelService(QObject* parent)
    : QObject(parent),
      m_traceGeneration(std::make_shared<std::atomic<quint64>>(0)),
      m_samplesGeneration(std::make_shared<std::atomic<quint64>>(0)),
      m_runsGeneration(std::make_shared<std::atomic<quint64>>(0)),
      m_comparisonGeneration(std::make_shared<std::atomic<quint64>>(0)),
      m_adequacyGeneration(std::make_shared<std::atomic<quint64>>(0)),
      m_attributionGeneration(std::make_shared<std::atomic<quint64>>(0)) {
    startWorker(nullptr);
}

void ModelService::startWorker(std::shared_ptr<AttentionModel> model) {
    m_state = std::make_shared<WorkerState>();
    m_state->model = std::move(model);
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("saccade-model"));
    m_context = new QObject;
    m_context->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_context, &QObject::deleteLater);
    m_thread->start();
}

void ModelService::abandonWorker(std::shared_ptr<AttentionModel> keep) {
    ++m_epoch;
    // Its measurements stop at their next step (they may share the kept model with the new worker).
    ++*m_samplesGeneration;
    ++*m_runsGeneration;
    ++*m_comparisonGeneration;
    ++*m_adequacyGeneration;
    ++*m_attributionGeneration;
    // The stuck call may return some day: then its thread ends (quit) and is deleted; until then
    // it is left alone, never waited for.
    QThread* old = m_thread;
    connect(old, &QThread::finished, old, &QObject::deleteLater);
    old->quit();
    startWorker(std::move(keep));
}

void ModelService::cancelModelWork() {
    if (busySeconds() <= 0) return;
    const bool hung = m_state->call.load() != int(Call::Load);
    const QString what = busyWith();
    const double seconds = busySeconds();
    // A stuck load leaves the previous model as it was; any other stuck call means that model hangs.
    abandonWorker(hung ? nullptr : m_model);
    if (hung) {
        m_model.reset();
        m_card.reset();
    }
    m_loading = false;
    m_tracePending = false;
    Q_EMIT modelFailed(tr("cancelled after %1 s of %2: the model did not return, and its work was abandoned")
                           .arg(seconds, 0, 'f', 0).arg(what));
}

double ModelService::busySeconds() const {
    const qint64 started = m_state->callStartedMs.load();
    return started == 0 ? 0.0 : double(nowMs() - started) / 1000.0;
}

QString ModelService::busyWith() const {
    switch (Call(m_state->call.load())) {
        case Call::Load: return tr("loading the model");
        case Call::Trace: return tr("running the model on the image");
        case Call::Other: break;
    }
    return tr("running the model on a dataset's images");
}

int ModelService::callsRunning() { return g_callsRunning.load(); }

ModelService::~ModelService() {
    // Queued jobs see a stale generation and return at once; the running one finishes, unless it
    // does not return (a looping model): then the thread is left behind and main() ends the process.
    ++*m_traceGeneration;
    ++*m_samplesGeneration;
    ++*m_runsGeneration;
    ++*m_comparisonGeneration;
    ++*m_adequacyGeneration;
    ++*m_attributionGeneration;
    ++m_epoch;
    m_thread->quit();
    if (m_thread->wait(5000)) delete m_thread;
}

void ModelService::post(std::function<void(WorkerState&)> job, Call kind) {
    QMetaObject::invokeMethod(
        m_context,
        [state = m_state, epoch = m_epoch, kind, job = std::move(job)] {
            t_jobEpoch = epoch;
            t_inJob = true;
            state->call = int(kind);
            state->callStartedMs = nowMs();
            ++g_callsRunning;
            try {
                job(*state);
            } catch (...) {
                // Every job catches its own errors and replies; this is the last line.
            }
            --g_callsRunning;
            state->callStartedMs = 0;
            t_inJob = false;
        },
        Qt::QueuedConnection);
}

void ModelService::reply(std::function<void()> reply) {
    // A reply from an abandoned worker (its call returned after all) is dropped.
    const quint64 epoch = t_inJob ? t_jobEpoch : m_epoch;
    QMetaObject::invokeMethod(
        this,
        [this, epoch, reply = std::move(reply)] {
            if (epoch == m_epoch) reply();
        },
        Qt::QueuedConnection);
}

void ModelService::loadModel(const QString& path, const QString& device, const InputOverrides& input) {
    m_loading = true;
    // Measurements of the old model stop after their current step, so the load does not wait.
    ++*m_comparisonGeneration;
    ++*m_adequacyGeneration;
    ++*m_samplesGeneration;  // the browser's predictions belong to the old model
    // A load still running (an imported model that hangs while it is probed) is not waited for:
    // the model opened next goes first.
    if (m_state->call.load() == int(Call::Load) && m_state->callStartedMs.load() != 0) abandonWorker(m_model);
    QPointer<ModelService> self(this);
    post([self, path, device, input, this](WorkerState& state) {
        QString error;
        std::optional<ModelCard> card;
        try {
            auto loaded = loadAttentionModel(path.toStdString(), device.toStdString(), input);
            if (loaded) {
                state.model = *loaded;
                state.datasets.clear();  // fitted to the old model's input
                card = makeCard(path, *state.model);
                card->input = input;
            } else {
                error = QString::fromStdString(loaded.error());
            }
        } catch (const std::exception& e) {
            error = errorText(e);
        }
        if (!self) return;
        reply([this, card, error, model = card ? state.model : nullptr] {
            m_loading = false;
            if (card) {
                m_model = model;
                m_card = card;
                Q_EMIT modelLoaded(*card);
            } else {
                Q_EMIT modelFailed(error);
            }
        });
    }, Call::Load);
}

void ModelService::requestTrace(const TraceRequest& request) {
    const quint64 generation = ++*m_traceGeneration;
    m_tracePending = true;
    {
        const std::lock_guard<std::mutex> lock(m_state->mailbox->mutex);
        m_state->mailbox->request = request;
        m_state->mailbox->generation = generation;
    }
    QPointer<ModelService> self(this);
    post([self, this](WorkerState& state) {
        if (self) serveTrace(state);
    }, Call::Trace);
}

void ModelService::serveTrace(WorkerState& state) {
    std::optional<TraceRequest> request;
    quint64 generation = 0;
    {
        const std::lock_guard<std::mutex> lock(state.mailbox->mutex);
        request = std::exchange(state.mailbox->request, std::nullopt);
        generation = state.mailbox->generation;
    }
    if (!request || m_traceGeneration->load() != generation) return;  // served already, or superseded
    // Between the steps of a measurement too, a trace is a model call that Cancel may give up on.
    const int outer = state.call.exchange(int(Call::Trace));
    const qint64 outerStart = state.callStartedMs.exchange(nowMs());
    struct Restore {
        WorkerState& s;
        int call;
        qint64 start;
        ~Restore() {  // the measurement goes on, alive
            s.call = call;
            s.callStartedMs = start == 0 ? 0 : nowMs();
        }
    } restore{state, outer, outerStart};
    std::optional<Trace> trace, companion;
    QString error;
    const auto start = std::chrono::steady_clock::now();
    try {
        if (!state.model) {
            error = QStringLiteral("no model is loaded");
        } else {
            auto result = state.model->trace(request->image, request->rule, request->seed, request->imageId, request->truth);
            if (result)
                trace = std::move(result).value();
            else
                error = QString::fromStdString(result.error());
        }
    } catch (const std::exception& e) {
        error = errorText(e);
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const bool withCompanion = trace && !request->companionRule.empty();
    reply([this, trace, error, ms, generation, withCompanion, image = request->image] {
        if (*m_traceGeneration != generation) return;
        m_tracePending = withCompanion;  // busy until the companion is drawn too
        if (trace)
            Q_EMIT traceReady(*trace, image, ms);
        else
            Q_EMIT traceFailed(error);
    });
    if (!withCompanion || m_traceGeneration->load() != generation) return;
    // Then, beside it, the same image under the companion rule (a failure leaves the trace alone).
    try {
        auto other = state.model->trace(request->image, request->companionRule, request->seed, request->imageId,
                                        request->truth);
        if (other) companion = std::move(other).value();
    } catch (const std::exception&) {
    }
    reply([this, companion, generation] {
        if (*m_traceGeneration != generation) return;
        m_tracePending = false;
        Q_EMIT companionReady(companion ? *companion : Trace{});
    });
}

void ModelService::requestRuns(const RunsRequest& request) {
    const quint64 generation = ++*m_runsGeneration;
    QPointer<ModelService> self(this);
    post([self, request, generation, gen = m_runsGeneration, this](WorkerState& state) {
        // Chunks of runs, each followed by the statistics so far: results stream in, and a newer
        // request or cancelRuns() stops this one between chunks.
        constexpr int kChunk = 1000;
        RunSet set;
        for (int first = 0; first < request.runs; first += kChunk) {
            if (gen->load() != generation || !self) return;
            state.alive();
            QString error;
            try {
                if (!state.model) {
                    error = QStringLiteral("no model is loaded");
                } else {
                    const int count = std::min(kChunk, request.runs - first);
                    auto part = state.model->sampleRuns(request.image, count, runSeed(request.seed, size_t(first)),
                                                        request.imageId, request.truth, request.kSample);
                    if (!part) {
                        error = QString::fromStdString(part.error());
                    } else if (first == 0) {
                        set = std::move(part).value();
                    } else {
                        for (auto& run : part->runs) set.runs.push_back(std::move(run));
                        set.seconds += part->seconds;
                    }
                }
            } catch (const std::exception& e) {
                error = errorText(e);
            }
            if (!error.isEmpty()) {
                reply([this, error, generation] {
                    if (*m_runsGeneration == generation) Q_EMIT runsFailed(error);
                });
                return;
            }
            const auto stats = computeRunStats(set);
            const int total = request.runs;
            reply([this, set, stats, total, generation] {
                if (*m_runsGeneration != generation) return;
                if (stats.runs < total) {
                    Q_EMIT runsProgress(stats.runs, total);
                    Q_EMIT runsPartial(set, stats, total);
                } else {
                    Q_EMIT runsReady(set, stats);
                }
            });
        }
    });
}

void ModelService::cancelRuns() { ++*m_runsGeneration; }

void ModelService::postDatasetJob(const QString& dataset, std::shared_ptr<std::atomic<quint64>> gen,
                                  std::function<QString(WorkerState&, const Dataset&, const Progress&)> work,
                                  std::function<void(double)> onProgress, std::function<void(const QString&)> done) {
    const quint64 generation = ++*gen;
    QPointer<ModelService> self(this);
    post([self, dataset, generation, gen, work = std::move(work), onProgress = std::move(onProgress),
          done = std::move(done), this](WorkerState& state) {
        if (gen->load() != generation) return;
        QString error;
        try {
            auto d = state.dataset(dataset.toStdString());
            if (!state.model) {
                error = QStringLiteral("no model is loaded");
            } else if (!d) {
                error = QString::fromStdString(d.error());
            } else {
                auto progress = [&](double fraction) {
                    if (gen->load() != generation || !self) return false;
                    state.alive();
                    serveTrace(state);  // between two steps of the job: the canvas stays live
                    reply([fraction, generation, gen, onProgress] {
                        if (*gen == generation) onProgress(fraction);
                    });
                    return true;
                };
                error = work(state, **d, progress);
            }
        } catch (const std::exception& e) {
            error = errorText(e);
        }
        if (!self) return;
        reply([error, generation, gen, done] {
            if (*gen == generation) done(error);
        });
    });
}

void ModelService::requestComparison(const QString& dataset, qint64 limit, quint64 seed) {
    auto result = std::make_shared<std::optional<DatasetComparison>>();
    auto rules = std::make_shared<std::optional<RuleComparison>>();
    postDatasetJob(
        dataset, m_comparisonGeneration,
        [result, rules, limit, seed](WorkerState& state, const Dataset& d, const Progress& progress) {
            if (!state.model->hasStochasticRuns()) {  // no sampled answer to compare: the model's rules instead
                auto c = compareRulesOnDataset(*state.model, d, Split::Test, defaultRuleComparisonRules(*state.model),
                                               limit, seed, progress);
                if (!c) return QString::fromStdString(c.error());
                *rules = std::move(c).value();
                return QString();
            }
            auto c = compareOnDataset(*state.model, d, Split::Test, defaultComparisonRules(*state.model), limit, seed,
                                      progress);
            if (!c) return QString::fromStdString(c.error());
            *result = std::move(c).value();
            return QString();
        },
        [this](double fraction) { Q_EMIT comparisonProgress(fraction); },
        [this, result, rules, dataset](const QString& error) {
            if (!error.isEmpty())
                Q_EMIT comparisonFailed(error);
            else if (*rules)
                Q_EMIT ruleComparisonReady(**rules, dataset);
            else
                Q_EMIT comparisonReady(**result, dataset);
        });
}

void ModelService::requestAdequacy(const QString& dataset, const AdequacyOptions& options) {
    auto result = std::make_shared<std::optional<AdequacyReport>>();
    postDatasetJob(
        dataset, m_adequacyGeneration,
        [result, options](WorkerState& state, const Dataset& d, const Progress& progress) {
            auto r = measureAdequacy(*state.model, d, Split::Test, options, progress);
            if (!r) return QString::fromStdString(r.error());
            *result = std::move(r).value();
            return QString();
        },
        [this](double fraction) { Q_EMIT adequacyProgress(fraction); },
        [this, result, dataset](const QString& error) {
            if (error.isEmpty())
                Q_EMIT adequacyReady(**result, dataset);
            else
                Q_EMIT adequacyFailed(error);
        });
}

void ModelService::cancelAdequacy() { ++*m_adequacyGeneration; }

void ModelService::requestAttribution(const Image& image, const std::optional<GroundTruth>& truth,
                                      const AttributionOptions& options) {
    const quint64 generation = ++*m_attributionGeneration;
    QPointer<ModelService> self(this);
    post([self, image, truth, options, generation, gen = m_attributionGeneration, this](WorkerState& state) {
        if (gen->load() != generation) return;  // a newer request came first
        Result<AttributionMap> map = Error{"no model is loaded"};
        if (state.model) map = attribute(*state.model, image, options, truth);
        if (!self || gen->load() != generation) return;
        reply([this, map = std::move(map), generation, gen] {
            if (gen->load() != generation) return;
            if (map) Q_EMIT attributionReady(*map);
            else Q_EMIT attributionFailed(QString::fromStdString(map.error()));
        });
    });
}

void ModelService::cancelComparison() { ++*m_comparisonGeneration; }

void ModelService::requestSamples(const QString& dataset, qint64 first, int count) {
    const quint64 generation = ++*m_samplesGeneration;
    QPointer<ModelService> self(this);
    post([self, dataset, first, count, generation, gen = m_samplesGeneration, this](WorkerState& state) {
        auto fail = [&](const QString& message) {
            if (self) reply([this, message] { Q_EMIT samplesFailed(message); });
        };
        try {
            auto d = state.dataset(dataset.toStdString());
            if (!d) return fail(QString::fromStdString(d.error()));
            const qint64 size = (*d)->size(Split::Test);
            const qint64 end = std::min<qint64>(size, first + count);
            QVector<BrowsedSample> chunk;
            for (qint64 i = std::max<qint64>(0, first); i < end; ++i) {
                if (gen->load() != generation) return;
                state.alive();
                const Sample s = (*d)->sample(Split::Test, i);
                BrowsedSample b;
                b.index = i;
                b.image = s.image;
                b.label = s.label;
                if (state.model && traitsOf(state.model->outputKind()).referenceScored) {
                    const auto id = dataset.toStdString() + ":test:" + std::to_string(i);
                    const auto truth = sceneGroundTruth(s);
                    auto valid = [&](const std::string& text) {
                        return std::find(truth.references.begin(), truth.references.end(), text) != truth.references.end();
                    };
                    b.caption = true;
                    if (auto t = state.model->trace(s.image, state.model->deterministicRule(), 1, id); t) {
                        b.argmaxText = QString::fromStdString(t->output.text);
                        b.argmaxValid = valid(t->output.text);
                        b.argmaxLabel = 0;
                    }
                    if (auto t = state.model->trace(s.image, "sample", 1, id); t) {
                        b.sampleText = QString::fromStdString(t->output.text);
                        b.sampleValid = valid(t->output.text);
                        b.sampleLabel = 0;
                    }
                } else if (state.model) {
                    const auto id = dataset.toStdString() + ":test:" + std::to_string(i);
                    if (auto t = state.model->trace(s.image, state.model->deterministicRule(), 1, id); t)
                        b.argmaxLabel = t->output.label;
                    if (auto t = state.model->trace(s.image, "sample", 1, id); t) b.sampleLabel = t->output.label;
                }
                chunk.push_back(std::move(b));
                if (chunk.size() == kSamplesPerChunk || i + 1 == end) {
                    if (!self) return;
                    reply([this, dataset, chunk, size, generation] {
                        if (*m_samplesGeneration == generation) Q_EMIT samplesReady(dataset, chunk, size);
                    });
                    chunk.clear();
                }
            }
        } catch (const std::exception& e) {
            fail(errorText(e));
        }
    });
}

void ModelService::requestSample(const QString& dataset, qint64 index) {
    QPointer<ModelService> self(this);
    post([self, dataset, index, this](WorkerState& state) {
        QString error;
        std::optional<Sample> sample;
        try {
            auto d = state.dataset(dataset.toStdString());
            if (!d)
                error = QString::fromStdString(d.error());
            else if (index < 0 || index >= (*d)->size(Split::Test))
                error = QStringLiteral("sample %1 is outside the test split of %2 (%3 images)")
                            .arg(index).arg(dataset).arg((*d)->size(Split::Test));
            else
                sample = (*d)->sample(Split::Test, index);
        } catch (const std::exception& e) {
            error = errorText(e);
        }
        if (!self) return;
        reply([this, dataset, index, sample, error] {
            if (sample)
                Q_EMIT sampleReady(dataset, index, *sample);
            else
                Q_EMIT samplesFailed(error);
        });
    });
}

}  // namespace saccade::ui
