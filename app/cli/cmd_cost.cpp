// saccade-cli cost: what selection really costs, per stage and rule, measured and counted.

#include <iomanip>
#include <iostream>
#include <memory>

#include "commands.h"
#include "run_input.h"
#include "strict_options.h"
#include "models/cost_profile.h"

namespace saccade::cli {

void addCostCommand(CLI::App& app, int& exitCode) {
    auto o = std::make_shared<CostOptions>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand(
        "cost", "What selection really costs: per stage of the forward pass (encoder over all cells, scoring, "
                "selection, the network on the selected part, recurrent state and classifier), the time per image "
                "and the FLOPs counted from the layer shapes, for each rule; a patch model in both its dense and "
                "select variants.");
    cmd->add_option("--model", o->model, "checkpoint (.pt); its config sizes the network")->required();
    cmd->add_option("--batch", o->batch, "images per forward pass")->capture_default_str()->check(wholeNumberIn(1, 65536));
    cmd->add_option("--repeats", o->repeats, "timed passes (median per stage)")->capture_default_str()->check(wholeNumberIn(1, 1000));
    cmd->add_option("--device", o->device, "auto, cpu, cuda or cuda:N")->capture_default_str();
    cmd->add_flag("--json", *json, "print the report as JSON (schema saccade.cost)");
    cmd->callback([o, json, &exitCode] {
        auto r = profileCost(*o, consoleProgress("cost"));
        if (!r) { exitCode = badInput("cost", r.error()); return; }
        if (*json) { std::cout << costReportToJson(*r) << "\n"; return; }
        std::cout << r->modelType << " architecture on " << r->device << ", " << r->threads << " thread(s), batch "
                  << r->batch << ", per image:\n";
        for (const auto& c : r->rules) {
            std::cout << std::fixed << "  " << c.variant << " / " << c.rule << ": " << std::setprecision(3) << c.msPerImage
                      << " ms, " << std::setprecision(2) << c.mflopsPerImage << " MFLOP\n";
            for (const auto& s : c.stages)
                std::cout << "    " << std::left << std::setw(24) << s.stage << std::right << std::setprecision(3)
                          << std::setw(9) << s.msPerImage << " ms" << std::setprecision(2) << std::setw(10)
                          << s.mflopsPerImage << " MFLOP\n";
            std::cout << "    -> " << c.note << "\n";
        }
    });
}

}  // namespace saccade::cli
