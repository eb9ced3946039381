// The family registry proven from outside: this file alone defines a small model family ("toy": a
// convolution's 4x4 grid of cells, soft attention from one learned query, a linear read-out),
// registers it, and it then trains, evaluates and traces through saccade-cli's own `train`, `eval`
// and `trace` (run in-process) and trains on the Training page, with no other file changed.

#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "cli_app.h"
#include "data/batch.h"
#include "data/dataset.h"
#include "models/batched_eval.h"
#include "models/model_family.h"
#include "models/model_input.h"
#include "models/model_loading.h"
#include "train/train_loop.h"
#include "ui/training/training_panel.h"

namespace {

using namespace saccade;

constexpr int kCells = 4;  // the grid is kCells x kCells

struct ToyNetImpl : torch::nn::Module {
    ToyNetImpl(int channels, int side, int width, int classes)
        : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, width, side / kCells)
                                                              .stride(side / kCells)))),
          query(register_parameter("query", torch::randn({width}) * 0.1)),
          out(register_module("out", torch::nn::Linear(width, classes))) {}
    /// logits [B, K] and the attention over the cells [B, 16].
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x) {
        const auto cells = conv->forward(x).flatten(2).transpose(1, 2);  // [B, 16, width]
        const auto alpha = torch::softmax(torch::matmul(cells, query), 1);
        return {out->forward((alpha.unsqueeze(2) * cells).sum(1)), alpha};
    }
    torch::nn::Conv2d conv;
    torch::Tensor query;
    torch::nn::Linear out;
};
TORCH_MODULE(ToyNet);

struct ToyConfig {
    int channels = 1, side = 60, width = 8, classes = 10;
};

std::string toJson(const ToyConfig& c) {
    return nlohmann::json{{"channels", c.channels}, {"side", c.side}, {"width", c.width}, {"classes", c.classes}}.dump();
}

Result<ToyConfig> fromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error{"the toy config is not a JSON object"};
    ToyConfig c;
    c.channels = j.value("channels", 1);
    c.side = j.value("side", 60);
    c.width = j.value("width", 8);
    c.classes = j.value("classes", 10);
    return c;
}

class ToyModel : public AttentionModel {
public:
    ToyModel(CheckpointInfo info, ToyConfig config, ToyNet net, std::vector<std::string> names)
        : m_info(std::move(info)), m_config(config), m_net(std::move(net)), m_names(std::move(names)) {}
    const CheckpointInfo& info() const override { return m_info; }
    std::string deviceName() const override { return "cpu"; }
    std::vector<std::string> classNames() const override { return m_names; }
    int imageSize() const override { return m_config.side; }
    int channels() const override { return m_config.channels; }
    int steps() const override { return 1; }
    TrainingMode trainedMode() const override { return TrainingMode::Soft; }
    std::string deterministicRule() const override { return "soft"; }
    std::string summary() const override { return "toy: one soft look over a 4x4 grid"; }
    std::vector<std::string> evaluationRules() const override { return {"soft"}; }
    bool hasStochasticRuns() const override { return false; }

    Result<Trace> trace(const Image& image, const std::string& rule, std::uint64_t seed, const std::string& imageId,
                        const std::optional<GroundTruth>& truth) override {
        if (rule != "soft") return Error{"the toy family has one rule, soft"};
        auto input = modelInput(image, m_config.side, m_config.channels, torch::kCPU);
        if (!input) return Error{input.error()};
        torch::NoGradGuard noGrad;
        const auto [logits, alpha] = m_net->forward(*input);
        Trace t;
        t.modelId = "toy/" + m_info.dataset;
        t.imageId = imageId;
        t.rule = rule;
        t.seed = seed;
        t.device = "cpu";
        t.imageWidth = image.width;
        t.imageHeight = image.height;
        t.classNames = m_names;
        TraceStep step;
        const auto a = alpha[0].contiguous();
        step.grid = GridDistribution{kCells, kCells, std::vector<float>(a.data_ptr<float>(), a.data_ptr<float>() + a.numel())};
        step.entropy = entropyNats(step.grid->probs);
        t.output = classOutput(logits[0], m_names);
        step.outputProbs = t.output.probs;
        t.steps.push_back(step);
        t.groundTruth = truth;
        return validateTrace(t);
    }
    Result<RunSet> sampleRuns(const Image&, int, std::uint64_t, const std::string&, const std::optional<GroundTruth>&, int,
                              const Progress&) override {
        return Error{"the toy family samples nothing"};
    }
    Result<EvalReport> evaluate(const Dataset& dataset, Split split, const std::vector<std::string>& rules,
                                std::int64_t limit, std::uint64_t, const Progress& progress, const Shard& shard) override {
        auto predict = [&](const Batch& batch, const std::vector<std::int64_t>&) -> Result<std::vector<torch::Tensor>> {
            return std::vector<torch::Tensor>(rules.size(), m_net->forward(batch.images).first.argmax(-1));
        };
        return evaluateInBatches(dataset, split, rules, limit, 100, torch::kCPU, TrainingMode::Soft, predict, progress, shard);
    }

private:
    CheckpointInfo m_info;
    ToyConfig m_config;
    ToyNet m_net;
    std::vector<std::string> m_names;
};

/// A toy run: the request and its one setting.
struct ToyRun {
    FamilyTrainRequest request;
    int width = 0;
};

ToyRun toyRun(const FamilyTrainRequest& r, SettingsReader& s) { return {r, int(s.integer("width"))}; }

Result<TrainSummary> trainToy(const ToyRun& run, const TrainProgressCallback& onProgress) {
    const FamilyTrainRequest& r = run.request;
    const auto shard = checkTrainOptions(r.common);
    if (!shard) return Error{shard.error()};
    auto start = runStart(r.common, r.dataset, "toy");
    if (!start) return Error{start.error()};
    auto dataset = openDataset(start->dataset, {"", start->seed});
    if (!dataset) return Error{dataset.error()};
    ToyConfig config;
    config.channels = (*dataset)->info().channels;
    config.side = (*dataset)->info().width;
    config.width = run.width;
    config.classes = int((*dataset)->info().classNames.size());
    torch::manual_seed(start->seed);
    ToyNet net(config.channels, config.side, config.width, config.classes);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(r.common.lr));
    TrainLoopSetup setup =
        loopSetup(r.common, *net, adam, "toy", toJson(config), start->dataset, start->seed, *start);
    std::vector<std::int64_t> evalIdx(64);
    std::iota(evalIdx.begin(), evalIdx.end(), 0);
    const auto evalBatch = makeBatch(**dataset, Split::Test, evalIdx, torch::kCPU);
    auto step = [&](std::int64_t it, double, TrainProgress& p) {
        std::vector<std::int64_t> idx(static_cast<std::size_t>(shard->size));
        std::iota(idx.begin(), idx.end(), it * r.common.batch);
        const auto batch = makeBatch(**dataset, Split::Train, idx, torch::kCPU);
        const auto logits = net->forward(batch.images).first;
        const auto loss = torch::nn::functional::cross_entropy(logits, batch.labels);
        adam.zero_grad();
        loss.backward();
        p.loss = p.crossEntropy = loss.item<double>();
        p.trainAccuracy = (logits.argmax(-1) == batch.labels).to(torch::kDouble).mean().item<double>();
    };
    auto evaluate = [&](TrainProgress& p) {
        torch::NoGradGuard noGrad;
        p.evalSoft = (net->forward(evalBatch.images).first.argmax(-1) == evalBatch.labels).to(torch::kDouble).mean().item<double>();
        return nlohmann::json{{"eval_accuracy", p.evalSoft}};
    };
    return runTrainLoop(setup, step, evaluate, onProgress);
}

Result<std::shared_ptr<AttentionModel>> openToy(const std::string& path, const std::string& device) {
    auto header = openCheckpoint(path, device, "toy", "a toy classifier");
    if (!header) return Error{header.error()};
    auto config = fromJson(header->info.configJson);
    if (!config) return configError(path, config.error());
    ToyNet net(config->channels, config->side, config->width, config->classes);
    if (auto loaded = loadNetWeights(*net, path, *header); !loaded) return Error{loaded.error()};
    return std::shared_ptr<AttentionModel>(std::make_shared<ToyModel>(header->info, *config, net, header->classNames));
}

ModelFamily toyFamily() {
    ModelFamily f({"toy", "toy soft-attention classifier (a test's own)", "a toy classifier",
                   "A test's family: one soft look over a 4x4 grid of convolution cells."},
                  FamilyOpeners::images(openToy));
    f.datasets = [] { return std::vector<std::string>{"translated-digits60"}; };
    f.defaultDataset = "translated-digits60";
    f.defaults.batch = 8;
    f.fields = {integerField("width", "Cell width:", 2, 64, 8, "features per cell")};
    f.progress.evalSoft = "eval toy accuracy";
    f.progress.evalArgmax.clear();
    f.progress.evalSample.clear();
    setTrainer(f, toyRun, trainToy);
    f.progressLine = [](const TrainProgress& p, const FamilySettings&) { return "  toy acc " + std::to_string(p.trainAccuracy); };
    f.evaluationLine = [](const TrainProgress& p, const FamilySettings&) { return " toy accuracy " + std::to_string(p.evalSoft); };
    f.network = [](const std::string& json) -> Result<std::shared_ptr<torch::nn::Module>> {
        auto c = fromJson(json);
        if (!c) return Error{c.error()};
        return std::shared_ptr<torch::nn::Module>(ToyNet(c->channels, c->side, c->width, c->classes).ptr());
    };
    f.listLine = [](const std::string& json, const std::string& dataset) {
        auto c = fromJson(json);
        return "toy, " + std::to_string(c ? c->width : 0) + " features per cell, " + dataset;
    };
    return f;
}

/// saccade-cli with `args`, in this process: its exit code, and what it printed on stdout.
std::pair<int, std::string> runCli(std::vector<std::string> args) {
    args.insert(args.begin(), "saccade-cli");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream captured;
    auto* previous = std::cout.rdbuf(captured.rdbuf());
    const int rc = saccade::cli::runSaccadeCli(int(argv.size()), argv.data());
    std::cout.rdbuf(previous);
    return {rc, captured.str()};
}

}  // namespace

class TestFamilyRegistry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        const auto added = registerFamily(toyFamily());
        QVERIFY2(added, added ? "" : added.error().c_str());
        // A second family of the same name is refused, and the first stays.
        const ModelFamily* first = findFamily("toy");
        const auto again = registerFamily(toyFamily());
        QVERIFY(!again);
        QCOMPARE(QString::fromStdString(again.error()), QStringLiteral("a model family named 'toy' is already registered"));
        QCOMPARE(findFamily("toy"), first);
    }
    void aFamilyOfTheTestsOwnTrainsEvaluatesAndTracesInTheCli();
    void aFamilyOfTheTestsOwnTrainsOnTheTrainingPage();
};

void TestFamilyRegistry::aFamilyOfTheTestsOwnTrainsEvaluatesAndTracesInTheCli() {
    QTemporaryDir dir;
    const std::string out = dir.filePath(QStringLiteral("toy.pt")).toStdString();
    // train toy: its own option (--width, checked against its range), the shared ones.
    QCOMPARE(runCli({"train", "toy", "--width", "65", "--iterations", "2", "--out", out}).first, 2);
    const auto [trained, log] = runCli({"--threads", "1", "train", "toy", "--width", "6", "--iterations", "3", "--batch", "8",
                                     "--seed", "5", "--json", "--out", out});
    QVERIFY2(trained == 0, log.c_str());
    const auto summary = nlohmann::json::parse(log, nullptr, false);
    QVERIFY2(!summary.is_discarded(), log.c_str());
    QCOMPARE(summary.value("iterations", 0), 3);
    std::ifstream sidecarFile(dir.filePath(QStringLiteral("toy.json")).toStdString());
    const auto sidecar = nlohmann::json::parse(sidecarFile, nullptr, false);
    QCOMPARE(sidecar.value("model_type", std::string()), std::string("toy"));
    QCOMPARE(sidecar.value("command", std::string()),
             std::string("saccade-cli train toy --dataset translated-digits60 --width 6 --batch 8 --seed 5"));
    // eval: opened through the registry, evaluated by the model, on its dataset.
    const auto [evaluated, report] = runCli({"eval", "--model", out, "--limit", "50", "--json"});
    QVERIFY2(evaluated == 0, report.c_str());
    const auto eval = nlohmann::json::parse(report, nullptr, false);
    QVERIFY2(!eval.is_discarded(), report.c_str());
    QCOMPARE(eval["rules"][0].value("rule", std::string()), std::string("soft"));
    QCOMPARE(eval["rules"][0].value("n", 0), 50);
    // trace: one step whose 16 cells sum to 1.
    const auto [traced, text] = runCli({"trace", "--model", out, "--sample", "translated-digits60:3", "--json"});
    QVERIFY2(traced == 0, text.c_str());
    const auto trace = nlohmann::json::parse(text, nullptr, false);
    QVERIFY2(!trace.is_discarded(), text.c_str());
    QCOMPARE(trace["steps"].size(), std::size_t(1));
    double mass = 0;
    for (const auto& p : trace["steps"][0]["grid"]["probs"]) mass += p.get<double>();
    QCOMPARE(trace["steps"][0]["grid"]["probs"].size(), std::size_t(16));
    QVERIFY(std::abs(mass - 1) < 1e-3);
    // strip: the registry builds its network from the sidecar.
    const std::string stripped = dir.filePath(QStringLiteral("toy-stripped.pt")).toStdString();
    QCOMPARE(runCli({"strip", "--model", out, "--out", stripped}).first, 0);
    QVERIFY(std::filesystem::exists(stripped));
}

void TestFamilyRegistry::aFamilyOfTheTestsOwnTrainsOnTheTrainingPage() {
    QTemporaryDir dir;
    saccade::ui::TrainingPanel panel;
    QSignalSpy ended(&panel, &saccade::ui::TrainingPanel::jobEnded);
    QVERIFY(panel.setFamily(QStringLiteral("toy")));
    auto* family = panel.findChild<QComboBox*>(QStringLiteral("familyCombo"));
    QCOMPARE(family->currentText(), QStringLiteral("toy soft-attention classifier (a test's own)"));
    // Its form is its fields: the width, nothing of the other families.
    auto* width = panel.findChild<QSpinBox*>(QStringLiteral("field-width"));
    QVERIFY(width);
    QCOMPARE(width->maximum(), 64);
    QVERIFY(!panel.findChild<QWidget*>(QStringLiteral("field-mode")));
    QVERIFY(panel.setField(QStringLiteral("width"), QStringLiteral("4")));
    FamilyTrainRequest r = panel.request();
    r.common.iterations = 2;
    r.common.out = dir.filePath(QStringLiteral("toy.pt")).toStdString();
    panel.setRequest(r);
    panel.startTraining();
    QVERIFY(QTest::qWaitFor([&] { return ended.count() == 1; }, 120'000));
    QVERIFY2(panel.statusText().startsWith(QStringLiteral("Finished 2 iterations")), qPrintable(panel.statusText()));
    QVERIFY2(panel.statusText().contains(QStringLiteral("toy accuracy")), qPrintable(panel.statusText()));
    std::ifstream sidecarFile(dir.filePath(QStringLiteral("toy.json")).toStdString());
    const auto sidecar = nlohmann::json::parse(sidecarFile, nullptr, false);
    QCOMPARE(sidecar["config"].value("width", 0), 4);
}

QTEST_MAIN(TestFamilyRegistry)
#include "test_family_registry.moc"
