// saccade-cli report: one self-contained HTML file with everything Saccade measures about a model.

#include <sys/wait.h>
#include <unistd.h>

#include <ctime>
#include <vector>
#include <filesystem>
#include <iostream>
#include <memory>

#include "child_process.h"
#include "commands.h"
#include "input_options.h"
#include "output_check.h"
#include "common/atomic_file.h"
#include "models/attention_model.h"
#include "report/html_report.h"
#include "run_input.h"
#include "strict_options.h"

extern char** environ;

namespace saccade::cli {

namespace {

std::string nowUtc() {
    const std::time_t now = std::time(nullptr);
    char buf[32];
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

// The GUI program beside this one (an install's bin/) or in the build tree's app/gui/.
std::string findGuiProgram() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    for (const auto& candidate : {self.parent_path() / "saccade", self.parent_path().parent_path() / "gui" / "saccade"})
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    return {};
}

// Runs `saccade --report-pdf HTML --pdf-out PDF` (no shell) and waits for it.
Result<Unit> htmlToPdf(const std::string& html, const std::string& pdf) {
    const std::string gui = findGuiProgram();
    if (gui.empty())
        return Error{"--pdf needs the GUI program 'saccade' beside saccade-cli (not found); the HTML was written"};
    auto child = startChild({gui, "--report-pdf", html, "--pdf-out", pdf}, {}, ChildOutput::Inherit, ChildOutput::Inherit);
    if (!child) return Error{"could not start '" + gui + "' for the PDF"};
    if (finishChild(child.value()).first != 0) return Error{"'" + gui + "' could not write the PDF (see its message above)"};
    return Unit{};
}

}  // namespace

void addReportCommand(CLI::App& app, int& exitCode) {
    struct Args {
        ReportOptions report;
        std::string out, device = "auto";
        bool quick = false, pdf = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "report", "One self-contained HTML file for reviewers: the model card, accuracy per rule with 95% "
                  "intervals (training rule marked), one image's sampled runs against the deterministic rule, "
                  "the failure map of a boundary sweep, faithfulness with its caveat, and the cost per stage.");
    cmd->add_option("--model", a->report.modelPath, "checkpoint (.pt with its .json sidecar)")->required()->check(regularFile());
    cmd->add_option("--out", a->out, "report.html (written atomically)")->required();
    cmd->add_option("--dataset", a->report.dataset,
                    "a dataset NAME (saccade-cli data list) or an image FOLDER/CLASS/IMAGE.png "
                    "(default: the model's own)");
    cmd->add_option("--limit", a->report.limit, "test images for accuracy per rule")->capture_default_str()
        ->check(wholeNumberIn(1, 1000000));
    cmd->add_option("--image", a->report.imageIndex, "test image (index) of the runs and the sweep")->capture_default_str()
        ->check(wholeNumberIn(0, 100000000));
    cmd->add_option("--runs", a->report.runs, "sampled runs of that image")->capture_default_str()->check(wholeNumberIn(2, 10000));
    cmd->add_option("--sweep-runs", a->report.sweepRuns, "sampled runs per sweep position (0: the deterministic rule only)")
        ->capture_default_str()->check(wholeNumberIn(0, 1000));
    cmd->add_option("--faithfulness-images", a->report.faithfulnessImages, "test images for faithfulness")
        ->capture_default_str()->check(wholeNumberIn(1, 100000));
    cmd->add_option("--cost-repeats", a->report.costRepeats, "timed passes per stage (median)")->capture_default_str()
        ->check(wholeNumberIn(1, 100));
    cmd->add_option("--seed", a->report.seed, "seed of every stochastic figure")->capture_default_str();
    cmd->add_option("--device", a->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--pdf", a->pdf, "also write FILE.pdf beside FILE.html, through Qt (needs the GUI program "
                                   "saccade, installed or built beside saccade-cli)");
    cmd->add_flag("--quick", a->quick, "small figures in seconds (100 images, 50 runs, 2 sweep runs, 30 faithfulness "
                                       "images, 1 cost pass): for a first look, not for a review");
    declareDerivedOutputs(cmd, [a]() -> std::vector<std::pair<std::string, std::string>> {
        if (!a->pdf || a->out.size() < 5) return {};
        return {{a->out.substr(0, a->out.size() - 5) + ".pdf", "--pdf"}};
    });
    cmd->callback([a, &exitCode] {
        if (a->out.size() < 5 || a->out.substr(a->out.size() - 5) != ".html") {
            exitCode = badInput("report", "--out must end in .html");
            return;
        }
        // --out and the PDF beside it were checked with every other output before this runs.
        if (a->quick) {
            a->report.limit = std::min<std::int64_t>(a->report.limit, 100);
            a->report.runs = std::min(a->report.runs, 50);
            a->report.sweepRuns = std::min(a->report.sweepRuns, 2);
            a->report.faithfulnessImages = std::min<std::int64_t>(a->report.faithfulnessImages, 30);
            a->report.costRepeats = 1;
        }
        auto model = loadModelWith(a->report.modelPath, a->device, InputOptions{});
        if (!model) { exitCode = badInput("report", model.error()); return; }
        a->report.generated = nowUtc();
        auto html = buildHtmlReport(**model, a->report, consoleProgress("report"));
        if (!html) { exitCode = badInput("report", html.error()); return; }
        if (auto written = writeFileAtomic(a->out, *html); !written) {
            sayFailure("report", written.error());
            exitCode = kExitFailure;
            return;
        }
        std::cout << "wrote " << a->out << " (" << html->size() / 1024 << " KiB)" << std::endl;  // before the child's line
        if (a->pdf) {
            const std::string pdf = a->out.substr(0, a->out.size() - 5) + ".pdf";
            if (auto made = htmlToPdf(a->out, pdf); !made) {
                sayFailure("report", made.error());
                exitCode = kExitFailure;
                return;
            }
        }  // the GUI program says "wrote FILE.pdf"
    });
}

}  // namespace saccade::cli
