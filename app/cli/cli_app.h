#pragma once
// saccade-cli as a function: every command (the train commands from the family registry) parsed
// from argv and run, returning the process's exit code (0, 1 failure, 2 bad input). main() calls
// it; a test may call it in-process after registering a family of its own.

namespace saccade::cli {

int runSaccadeCli(int argc, char** argv);

}  // namespace saccade::cli
