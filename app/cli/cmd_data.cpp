// saccade-cli data list / preview / probe, and bench data.
#include <iomanip>
#include <iostream>
#include <memory>

#include "commands.h"
#include "strict_options.h"
#include "common/parse.h"
#include "run_input.h"
#include "data/contact_sheet.h"
#include "data/data_bench.h"
#include "data/dataset.h"
#include "data/image_io.h"
#include "data/probes.h"
#include "data/seq_pairs.h"
#include "common/atomic_file.h"
#include "models/patch/patch_bench.h"

namespace saccade::cli {

namespace {

std::string sampleTitle(const Sample& s, const std::vector<std::string>& classes, std::int64_t index) {
    if (!s.captionWords.empty()) {
        std::string caption;
        for (const auto& w : s.captionWords) caption += (caption.empty() ? "" : " ") + w;
        return caption;
    }
    std::string title = "#" + std::to_string(index);
    if (s.label >= 0)
        title += " " + (s.label < int(classes.size()) ? classes[s.label] : std::to_string(s.label));
    return title;
}

int writeSheet(const std::string& command, const Image& sheet, const std::string& out) {
    auto saved = saveImagePng(sheet, out);
    if (!saved) {
        sayFailure(command, saved.error());
        return kExitFailure;
    }
    std::cout << "wrote " << out << " (" << sheet.width << "x" << sheet.height << ")\n";
    return 0;
}

void addList(CLI::App& data, int& exitCode) {
    auto* cmd = data.add_subcommand("list", "List the datasets with their sizes.");
    cmd->callback([&exitCode] {
        std::cout << std::left << std::setw(23) << "name" << std::setw(11) << "size"
                  << std::setw(8) << "train" << std::setw(8) << "test" << "description\n";
        for (const auto& [name, description] : datasetNames()) {
            auto d = openDataset(name);
            std::cout << std::setw(23) << name;
            if (!d) {
                std::cout << "unavailable: " << d.error() << "\n";
                continue;
            }
            const auto& i = (*d)->info();
            const std::string size = std::to_string(i.width) + "x" + std::to_string(i.height) +
                                     (i.channels == 3 ? " RGB" : "");
            std::cout << std::setw(11) << size << std::setw(8) << i.trainSize << std::setw(8)
                      << i.testSize << description << "\n";
        }
        exitCode = 0;
    });
}

void addPreview(CLI::App& data, int& exitCode) {
    struct Args {
        std::string dataset = "cluttered-fashion60", split = "test", out, fashion;
        int count = 16, columns = 4;
        std::int64_t start = 0;
        std::uint64_t seed = 1;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = data.add_subcommand(
        "preview", "Write a contact sheet of samples with their ground-truth boxes drawn "
                   "(target green, distractors red, scene objects yellow).");
    cmd->add_option("--dataset", a->dataset, "dataset name (see 'data list')")->capture_default_str();
    cmd->add_option("--count", a->count, "samples")->capture_default_str()->check(CLI::Range(1, 1024));
    cmd->add_option("--start", a->start, "first sample index")->capture_default_str()->check(wholeNumberIn(0, 1000000000));
    cmd->add_option("--split", a->split, "train or test")->capture_default_str();
    cmd->add_option("--seed", a->seed, "dataset seed")->capture_default_str();
    cmd->add_option("--columns", a->columns, "tiles per row")->capture_default_str()->check(CLI::Range(1, 64));
    cmd->add_option("--fashion-mnist", a->fashion, "folder of the Fashion-MNIST IDX files");
    cmd->add_option("--out", a->out, "PNG file to write")->required()->check(writes(".png", "PNG"));
    cmd->callback([a, &exitCode] {
        auto split = parseSplit(a->split);
        if (!split) { exitCode = badInput("data preview", split.error()); return; }
        auto d = openDataset(a->dataset, {a->fashion, a->seed});
        if (!d) { exitCode = badInput("data preview", d.error()); return; }
        const auto& info = (*d)->info();
        const auto n = (*d)->size(*split);
        if (a->start < 0 || a->start + a->count > n) {
            exitCode = badInput("data preview", "samples " + std::to_string(a->start) + ".." +
                                                    std::to_string(a->start + a->count - 1) +
                                                    " are outside the split's " + std::to_string(n));
            return;
        }
        std::vector<Sample> samples;
        std::vector<std::string> titles;
        for (std::int64_t i = a->start; i < a->start + a->count; ++i) {
            samples.push_back((*d)->sample(*split, i));
            titles.push_back(sampleTitle(samples.back(), info.classNames, i));
        }
        ContactSheetOptions o;
        o.columns = a->columns;
        o.tileSize = info.channels == 3 ? 192 : 168;
        o.captionLines = info.channels == 3 ? 4 : 1;  // scene captions wrap
        exitCode = writeSheet("data preview", contactSheet(samples, titles, o), a->out);
    });
}

void addPairs(CLI::App& data, int& exitCode) {
    struct Args {
        std::string task = "dates", split = "test", out;
        std::int64_t count = SeqTask::kTestSize, start = 0;
        std::uint64_t seed = kSeqTestSeed;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = data.add_subcommand(
        "pairs", "Write a sequence task's samples with their gold alignments as a pairs file (SOURCE<TAB>TARGET<TAB>"
                 "links), for eval --pairs and for training a model of one's own outside Saccade.");
    cmd->add_option("--task", a->task, "dates, reverse, sort or toy-translation")->capture_default_str();
    cmd->add_option("--split", a->split, "train or test")->capture_default_str();
    cmd->add_option("--count", a->count, "samples")->capture_default_str()->check(wholeNumberIn(1, 10000000));
    cmd->add_option("--start", a->start, "first sample index")->capture_default_str()->check(wholeNumberIn(0, 1000000000));
    cmd->add_option("--seed", a->seed, "the split's seed (the test split Saccade evaluates on: 1)")->capture_default_str();
    cmd->add_option("--out", a->out, "the file to write (atomic)")->required();
    cmd->callback([a, &exitCode] {
        auto split = parseSplit(a->split);
        if (!split) { exitCode = badInput("data pairs", split.error()); return; }
        auto task = openSeqTask(a->task);
        if (!task) { exitCode = badInput("data pairs", task.error()); return; }
        if (*split == Split::Test && a->start + a->count > SeqTask::kTestSize) {
            exitCode = badInput("data pairs", "the test split has " + std::to_string(SeqTask::kTestSize) + " samples; --start " +
                                                  std::to_string(a->start) + " --count " + std::to_string(a->count) + " goes past it");
            return;
        }
        if (auto w = writeFileAtomic(a->out, seqPairsText(**task, *split, a->start, a->count, a->seed)); !w) {
            sayFailure("data pairs", w.error());
            exitCode = kExitFailure;
            return;
        }
        std::cout << "wrote " << a->out << " (" << a->count << " " << a->task << " " << a->split << " pairs, seed " << a->seed << ")\n";
        exitCode = 0;
    });
}

void addProbe(CLI::App& data, int& exitCode) {
    struct Args {
        ProbeOptions probe;
        std::string object = "blob", dx = "-6:6", dy = "0", dataset = "fashion28", out;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = data.add_subcommand(
        "probe", "Boundary probes: a small object at exact offsets from the grid line nearest "
                 "the canvas centre, as a contact sheet.");
    auto& p = a->probe;
    cmd->add_option("--canvas", p.canvas, "canvas side")->capture_default_str()->check(wholeNumberIn(8, 4096));
    cmd->add_option("--cell", p.cellSize, "grid cell size")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--origin-x", p.originX, "grid origin x")->capture_default_str();
    cmd->add_option("--origin-y", p.originY, "grid origin y")->capture_default_str();
    cmd->add_option("--size", p.objectSize, "object side in pixels")->capture_default_str()->check(wholeNumberIn(1, 4096));
    cmd->add_option("--object", a->object, "blob or item")->capture_default_str();
    cmd->add_option("--dataset", a->dataset, "source of items and clutter")->capture_default_str();
    cmd->add_option("--item", p.itemIndex, "test-split index of the item")->capture_default_str()->check(wholeNumberIn(0, 1000000000));
    cmd->add_option("--dx", a->dx, "x offsets from the anchor line, LO:HI")->capture_default_str();
    cmd->add_option("--dy", a->dy, "y offsets from the anchor line, LO:HI")->capture_default_str();
    cmd->add_option("--distractors", p.distractors, "clutter pieces")->capture_default_str()->check(wholeNumberIn(0, 1000));
    cmd->add_option("--seed", p.seed, "clutter seed")->capture_default_str();
    cmd->add_option("--out", a->out, "PNG contact sheet to write")->required()->check(writes(".png", "PNG"));
    cmd->callback([a, &exitCode] {
        auto& p = a->probe;
        auto dx = parseIntRange(a->dx, "--dx");
        auto dy = parseIntRange(a->dy, "--dy");
        if (!dx || !dy) {
            exitCode = badInput("data probe", !dx ? dx.error() : dy.error());
            return;
        }
        p.dxMin = dx->lo, p.dxMax = dx->hi, p.dyMin = dy->lo, p.dyMax = dy->hi;
        auto object = parseProbeObject(a->object);
        if (!object) { exitCode = badInput("data probe", object.error()); return; }
        p.object = *object;
        std::shared_ptr<const Dataset> source;
        if (p.object == ProbeObject::Item || p.distractors > 0) {
            auto d = openDataset(a->dataset);
            if (!d) { exitCode = badInput("data probe", d.error()); return; }
            source = *d;
        }
        auto probes = makeProbes(p, source ? source->objectSource() : nullptr);
        if (!probes) { exitCode = badInput("data probe", probes.error()); return; }
        std::vector<Sample> samples;
        std::vector<std::string> titles;
        for (const auto& pr : *probes) {
            samples.push_back(pr.sample);
            titles.push_back("dx=" + std::to_string(pr.dx) + " dy=" + std::to_string(pr.dy));
        }
        ContactSheetOptions o;
        o.columns = std::min<int>(7, static_cast<int>(samples.size()));
        o.tileSize = 160;
        o.gridCell = p.cellSize;
        o.gridOriginX = p.originX;
        o.gridOriginY = p.originY;
        std::cout << "anchor line at x = " << probeAnchor(p.canvas, p.cellSize, p.originX)
                  << ", y = " << probeAnchor(p.canvas, p.cellSize, p.originY) << "; "
                  << samples.size() << " probes\n";
        exitCode = writeSheet("data probe", contactSheet(samples, titles, o), a->out);
    });
}

void addPatchBench(CLI::App& bench, int& exitCode) {
    auto o = std::make_shared<PatchBenchOptions>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench.add_subcommand(
        "patch", "Patch classifier: training images/s (soft and hard steps) and single-image "
                 "trace latency.");
    cmd->add_option("--model", o->model, "checkpoint whose config sizes the network")->required();
    cmd->add_option("--batch", o->batch, "training batch")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", *json, "print one JSON object");
    cmd->callback([o, json, &exitCode] {
        auto r = benchPatch(*o);
        if (!r) { exitCode = badInput("bench patch", r.error()); return; }
        if (*json) { std::cout << patchBenchToJson(*r) << "\n"; return; }
        std::cout << std::fixed << std::setprecision(1) << "patch classifier on " << r->device << ", "
                  << r->threads << " intra-op thread(s), batch " << r->batch << ", median of "
                  << r->repeats << "\n"
                  << "variant   soft step ms (img/s)   hard step ms (img/s)   1 image argmax ms   1 image soft ms\n";
        for (const auto& v : r->variants) {
            std::cout << std::left << std::setw(8) << v.variant << std::right << std::setprecision(1)
                      << std::setw(10) << v.softStepMs << " (" << std::setprecision(0) << std::setw(6)
                      << v.softImagesPerSecond << ")" << std::setprecision(1) << std::setw(13)
                      << v.hardStepMs << " (" << std::setprecision(0) << std::setw(6)
                      << v.hardImagesPerSecond << ")" << std::setprecision(2) << std::setw(19)
                      << v.forwardArgmaxMs << std::setw(18) << v.forwardSoftMs << "\n";
        }
        std::cout << "(select: the patch network runs on the chosen cell only under sample/argmax; "
                     "soft attention must process every cell in both variants)\n"
                  << std::setprecision(2) << "loaded model, one full trace: argmax " << r->traceArgmaxMs
                  << " ms, sample " << r->traceSampleMs << " ms\n";
    });
}

}  // namespace

void addDataCommand(CLI::App& app, int& exitCode) {
    auto* data = app.add_subcommand("data", "Datasets: list, preview contact sheets, boundary probes, sequence tasks' pairs.");
    data->require_subcommand(1);
    addList(*data, exitCode);
    addPreview(*data, exitCode);
    addPairs(*data, exitCode);
    addProbe(*data, exitCode);
}

void addBenchCommand(CLI::App& app, int& exitCode) {
    auto* bench = app.add_subcommand("bench", "Benchmarks (report medians; not tests).");
    bench->require_subcommand(1);
    auto o = std::make_shared<DataBenchOptions>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = bench->add_subcommand(
        "data", "Sample generation against a training step's consumption, batch by batch.");
    cmd->add_option("--dataset", o->dataset, "dataset")->capture_default_str();
    cmd->add_option("--batch", o->batch, "batch size")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--repeats", o->repeats, "timed repeats (median)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_flag("--json", *json, "print one JSON object");
    addPatchBench(*bench, exitCode);
    cmd->callback([o, json, &exitCode] {
        auto r = benchDataGeneration(*o);
        if (!r) { exitCode = badInput("bench data", r.error()); return; }
        if (*json) { std::cout << dataBenchToJson(*r) << "\n"; return; }
        std::cout << std::fixed << std::setprecision(2) << r->dataset << ", batch " << r->batch
                  << ", " << r->threads << " intra-op thread(s), median of " << r->repeats << "\n"
                  << "  generate a batch    " << r->generateMs << " ms  (" << std::setprecision(0)
                  << r->samplesPerSecond << " samples/s)\n"
                  << std::setprecision(2) << "  one training step   " << r->trainStepMs
                  << " ms  (" << std::setprecision(0) << r->trainSamplesPerSecond
                  << " samples/s; " << r->trainModel << ")\n"
                  << std::setprecision(1) << "  generation is " << r->ratio
                  << "x faster than training consumes\n";
    });
}

void addBenchCommands(CLI::App& app, int& exitCode) {
    addBenchCommand(app, exitCode);
    CLI::App& bench = *app.get_subcommand("bench");
    // Every bench of its own (a family's or a view's) in the order --help lists them; `bench seq`
    // comes with the sequence commands (addSeqCommands), `bench patch` with `bench data`.
    using AddBench = void (*)(CLI::App&, int&);
    for (AddBench add : {addRamCommands, addCaptionCommands, addVitCommands, addBenchImport, addBenchTrain,
                         addBenchAttention, addBenchAttribute, addBenchAll})
        add(bench, exitCode);
}

}  // namespace saccade::cli
