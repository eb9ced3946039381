// saccade-cli: headless Saccade.
#include "cli_app.h"
#include "common/runtime.h"

int main(int argc, char** argv) {
    saccade::ensurePassiveOpenMpWait(argv);
    saccade::tuneAllocator();
    return saccade::cli::runSaccadeCli(argc, argv);
}
