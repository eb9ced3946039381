#include "input_options.h"

#include <iostream>

namespace saccade::cli {

void addInputOptions(CLI::App* cmd, InputOptions& o) {
    // Given, a value must be there: an empty one would read as "the model's".
    const CLI::Validator given([](const std::string& v) { return v.empty() ? std::string("an empty value") : std::string(); },
                               "", "given");
    cmd->add_option("--resize", o.resize, "resize images so their shorter side is N pixels (default: the model's)")->check(given);
    cmd->add_option("--center-crop", o.crop, "then cut out the centre, S or HxW pixels (default: the model's input size)")
        ->check(given);
    cmd->add_option("--mean", o.mean, "imported models: normalise with this mean per channel, e.g. 0.5 or imagenet")->check(given);
    cmd->add_option("--std", o.std, "imported models: and this std per channel, e.g. 0.25 or imagenet")->check(given);
}

Result<std::shared_ptr<AttentionModel>> loadModelWith(const std::string& path, const std::string& device, const InputOptions& o) {
    auto overrides = parseInputOverrides(o.resize, o.crop, o.mean, o.std);
    if (!overrides) return Error{overrides.error()};
    auto model = loadAttentionModel(path, device, *overrides);
    if (model && !(*model)->warning().empty()) std::cerr << "saccade-cli: warning: " << (*model)->warning() << "\n";
    return model;
}

}  // namespace saccade::cli
