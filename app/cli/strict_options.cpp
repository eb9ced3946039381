#include "strict_options.h"

#include <cctype>

#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "common/display_text.h"
#include "common/parse.h"

namespace saccade::cli {

namespace {

CLI::Validator strictFor(const std::string& typeName) {
    if (typeName.rfind("UINT", 0) == 0)
        return CLI::Validator(
            [](std::string& text) {
                // Every 64-bit unsigned value: a seed may be 2^64 - 1.
                std::uint64_t v = 0;
                const char* end = text.data() + text.size();
                const auto [stop, error] = std::from_chars(text.data(), end, v);
                return !text.empty() && error == std::errc() && stop == end
                           ? std::string()
                           : "must be a whole number from 0 to 18446744073709551615, got '" + text + "'";
            },
            "");
    if (typeName.rfind("INT", 0) == 0)
        return CLI::Validator(
            [](std::string& text) {
                auto v = parseInteger(text, "the value");
                return v ? std::string() : "must be a whole number, got '" + text + "'";
            },
            "");
    return CLI::Validator(
        [](std::string& text) {
            auto v = parseNumber(text, "the value");
            return v ? std::string() : "must be a finite number, got '" + text + "'";
        },
        "");
}

/// Typed text that is drawn into a PNG, an SVG or a terminal line: no control characters.
CLI::Validator displayable() {
    return CLI::Validator(
        [](std::string& text) {
            auto shown = checkDisplayText(text, "the text", 100000);
            return shown ? std::string() : shown.error();
        },
        "");
}

void strictenOptions(CLI::App& app) {
    for (CLI::Option* option : app.get_options()) {
        const std::string type = option->get_type_name();
        if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0)
            option->check(strictFor(type));
        const std::string name = option->get_name();
        if (name == "--text" || name == "--target-text" || name == "--caption" || name == "--object") option->check(displayable());
    }
    for (CLI::App* sub : app.get_subcommands({})) strictenOptions(*sub);
}

std::string shortNumber(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

void makeNumbersStrict(CLI::App& app) { strictenOptions(app); }

CLI::Validator wholeNumberIn(std::int64_t lo, std::int64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) {
            auto v = parseInteger(text, "the value", lo, hi);
            return v ? std::string()
                     : "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                           ", got '" + text + "'";
        },
        "");
}

CLI::Validator numberIn(double lo, double hi) {
    return CLI::Validator(
        [lo, hi](std::string& text) {
            auto v = parseNumber(text, "the value");
            return v && *v >= lo && *v <= hi ? std::string()
                                             : "must be a number from " + shortNumber(lo) + " to " +
                                                   shortNumber(hi) + ", got '" + text + "'";
        },
        "");
}

CLI::Validator regularFile() {
    return CLI::Validator(
        [](std::string& path) {
            struct stat st {};
            if (::stat(path.c_str(), &st) != 0) return "File does not exist: " + path;
            return S_ISREG(st.st_mode) ? std::string() : "not a regular file: " + path;
        },
        "FILE");
}

CLI::Validator writes(const std::string& extension, const std::string& what) {
    return CLI::Validator(
        [extension, what](std::string& path) {
            auto lower = [](std::string t) {
                for (auto& c : t) c = char(std::tolower(static_cast<unsigned char>(c)));
                return t;
            };
            const bool ends = path.size() > extension.size() &&
                              lower(path.substr(path.size() - extension.size())) == extension;
            return ends ? std::string() : "must end in " + extension + ": it writes " + what + ", got '" + path + "'";
        },
        "FILE" + extension);
}

int reportParseError(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    // --help and --version are not errors: CLI11 prints them and exits 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string command;
    for (CLI::App* sub = &app; sub;) {
        auto parsed = sub->get_subcommands();
        if (parsed.empty()) break;
        sub = parsed.front();
        command += (command.empty() ? "" : " ") + sub->get_name();
    }
    std::string message = e.what();
    if (command.empty()) {
        // No subcommand matched: name what was typed instead of "A subcommand is required".
        std::string first;
        for (int i = 1; i < argc && first.empty(); ++i) {
            const std::string arg = argv[i];
            if (arg.rfind("-", 0) != 0) first = arg;
        }
        std::string names;
        for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
        message = first.empty() ? "give a command (" + names + ")"
                                : "unknown command '" + first + "' (commands: " + names + ")";
        if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) || dynamic_cast<const CLI::ValidationError*>(&e) ||
            dynamic_cast<const CLI::ConversionError*>(&e))
            message = e.what();
    }
    // An option given twice: CLI11 says "--seed: At Most 1 required but received 2".
    const std::string atMost = ": At Most 1 required but received ";
    if (const auto at = message.find(atMost); at != std::string::npos)
        message = message.substr(0, at) + ": given " + message.substr(at + atMost.size()) + " times; give it once";
    // One line: CLI11 messages about several arguments can carry newlines.
    for (char& c : message)
        if (c == '\n') c = ' ';
    // What was typed is echoed: through the same door as every refusal (badInput).
    std::cerr << "saccade-cli" << (command.empty() ? "" : " " + command) << ": " << escapeDisplayText(message, 2000)
              << " (see --help)\n";
    return kExitBadInput;
}

}  // namespace saccade::cli
