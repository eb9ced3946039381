// saccade-cli: headless Saccade.
#include "cli_app.h"
#include "common/runtime.h"

SACCADE_PASSIVE_OPENMP_WAIT()

int main(int argc, char** argv) {
    saccade::restartUnlessOpenMpWaitsPassively(argv);
    saccade::chooseBlasKernelsForTheProcessor(argv);
    saccade::tuneAllocator();
    return saccade::cli::runSaccadeCli(argc, argv);
}
