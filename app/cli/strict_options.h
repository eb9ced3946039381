#pragma once
// Strict numbers on every option: CLI11 alone reads "-1" into an unsigned seed (it wraps) and
// accepts "nan" for a float. These checks run on the typed text before CLI11 converts it.

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace saccade::cli {

/// Adds a strict check to every integer, unsigned and floating-point option of `app` and its
/// subcommands: a whole number with no trailing text ("12abc", "1e3", "0x10", "5.9" refused), no
/// negative value for an unsigned option, and a finite decimal number for a float. Typed text
/// (--text, --caption, --object) may hold no control or direction-override characters.
void makeNumbersStrict(CLI::App& app);

/// CLI11 check: a whole number in [lo, hi].
CLI::Validator wholeNumberIn(std::int64_t lo, std::int64_t hi);

/// CLI11 check: a finite number in [lo, hi].
CLI::Validator numberIn(double lo, double hi);

/// CLI11 check: an existing regular file (not a folder, device or FIFO).
CLI::Validator regularFile();

/// CLI11 check for an output: its name ends in `extension` (".png", ".json"), case-insensitively,
/// so a file's name says what it holds ("must end in .png: it writes PNG").
CLI::Validator writes(const std::string& extension, const std::string& what);

/// The one line printed for a CLI11 parse error: "saccade-cli SUB: message", and the exit code
/// (0 for --help, 2 for bad input).
int reportParseError(CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

}  // namespace saccade::cli
