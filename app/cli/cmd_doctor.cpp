// saccade-cli doctor: BLAS, measured speed, threads, devices, versions, data.
#include <iostream>
#include <memory>

#include "commands.h"
#include "doctor/doctor.h"

namespace saccade::cli {

void addDoctorCommand(CLI::App& app, int& exitCode) {
    struct Args {
        bool json = false;
        int size = 512;
        std::string fashion;
    };
    auto args = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "doctor", "Report the BLAS in use, measured GFLOP/s, threads, devices, library versions "
                  "and data, with the fix for anything slow or missing.");
    cmd->add_flag("--json", args->json, "print one JSON object");
    cmd->add_option("--matmul-size", args->size, "n of the timed n x n product (default 512)")
        ->check(CLI::Range(16, 8192));
    cmd->add_option("--fashion-mnist", args->fashion,
                    "folder with the Fashion-MNIST IDX files (default: $SACCADE_FASHION_MNIST or "
                    "/usr/share/datasets/fashion-mnist)");
    cmd->callback([args, &exitCode] {
        DoctorOptions options;
        options.matmulSize = args->size;
        options.fashionMnistDir = args->fashion;
        const auto report = runDoctor(options);
        std::cout << (args->json ? doctorToJson(report) : doctorToText(report)) << "\n";
        exitCode = 0;  // warnings are advice, not failure
    });
}

}  // namespace saccade::cli
