#include "models/model_family.h"

#include <algorithm>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "common/parse.h"
#include "io/checkpoint.h"
#include "models/model_loading.h"

namespace saccade {

namespace {

struct Registry {
    std::mutex mutex;
    std::vector<std::unique_ptr<ModelFamily>> families;  // stable addresses: lookups hand out pointers
};

Registry& registry() {
    static Registry r;
    return r;
}

Result<Unit> addFamily(ModelFamily family) {
    if (family.name.empty() || family.title.empty()) return Error{"a model family needs a name and a title"};
    if (!family.open && !family.openText && !family.openWithInput)
        return Error{"the model family '" + family.name + "' has no way to open its files (open, openText or openWithInput)"};
    if (bool(family.train) != bool(family.readSettings))
        return Error{"the model family '" + family.name + "' sets train without readSettings: use setTrainer"};
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& f : r.families)
        if (f->name == family.name) return Error{"a model family named '" + family.name + "' is already registered"};
    r.families.push_back(std::make_unique<ModelFamily>(std::move(family)));
    return Unit{};
}

void ensureBuiltins() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (auto& f : builtinFamilies())
            if (auto added = addFamily(std::move(f)); !added) throw std::logic_error(added.error());
    });
}

const std::string& settingOf(const FamilySettings& s, const std::string& key) {
    const auto it = s.find(key);
    if (it == s.end()) throw std::logic_error("no family setting '" + key + "': it is not one of the family's fields");
    return it->second;
}

std::string describeRange(const FamilyField& f) {
    std::ostringstream s;
    s << f.min << " to " << f.max;
    return s.str();
}

Result<Unit> checkValue(const FamilyField& f, const std::string& value) {
    const std::string option = "--" + f.key;
    if (f.optional && value.empty()) return Unit{};
    switch (f.kind) {
    case FamilyField::Kind::Integer: {
        auto v = parseInteger(value, option);
        if (!v || double(*v) < f.min || double(*v) > f.max)
            return Error{option + " must be a whole number from " + describeRange(f) + ", not '" + value + "'"};
        return Unit{};
    }
    case FamilyField::Kind::Real: {
        auto v = parseNumber(value, option);
        if (!v || *v < f.min || *v > f.max)
            return Error{option + " must be a number from " + describeRange(f) + ", not '" + value + "'"};
        return Unit{};
    }
    case FamilyField::Kind::Choice:
        if (std::find(f.choices.begin(), f.choices.end(), value) == f.choices.end()) {
            std::string list;
            for (const auto& c : f.choices) list += (list.empty() ? "" : ", ") + c;
            return Error{option + " must be one of " + list + ", not '" + value + "'"};
        }
        return Unit{};
    case FamilyField::Kind::Flag:
        if (value != "true" && value != "false") return Error{option + " is a flag: true or false, not '" + value + "'"};
        return Unit{};
    case FamilyField::Kind::Text:
        return Unit{};
    }
    return Unit{};
}

const FamilyField* fieldOf(const ModelFamily& family, const std::string& key) {
    for (const auto& f : family.fields)
        if (f.key == key) return &f;
    return nullptr;
}

}  // namespace

FamilyField integerField(std::string key, std::string label, double min, double max, std::int64_t value, std::string help) {
    FamilyField f;
    f.key = std::move(key);
    f.label = std::move(label);
    f.kind = FamilyField::Kind::Integer;
    f.min = min;
    f.max = max;
    f.value = std::to_string(value);
    f.help = std::move(help);
    return f;
}

FamilyField realField(std::string key, std::string label, double min, double max, double value, std::string help) {
    FamilyField f = integerField(std::move(key), std::move(label), min, max, 0, std::move(help));
    f.kind = FamilyField::Kind::Real;
    f.value = numberText(value);
    return f;
}

FamilyField choiceField(std::string key, std::string label, std::vector<std::string> choices, std::string value,
                        std::string help) {
    FamilyField f = textField(std::move(key), std::move(label), std::move(help));
    f.kind = FamilyField::Kind::Choice;
    f.choices = std::move(choices);
    f.value = std::move(value);
    return f;
}

FamilyField flagField(std::string key, std::string label, std::string help) {
    FamilyField f = textField(std::move(key), std::move(label), std::move(help));
    f.kind = FamilyField::Kind::Flag;
    f.value = "false";
    return f;
}

FamilyField textField(std::string key, std::string label, std::string help) {
    FamilyField f;
    f.key = std::move(key);
    f.label = std::move(label);
    f.kind = FamilyField::Kind::Text;
    f.help = std::move(help);
    return f;
}

FamilyField optionalIntegerField(std::string key, std::string label, double min, double max, std::string help) {
    FamilyField f = integerField(std::move(key), std::move(label), min, max, 0, std::move(help));
    f.value.clear();
    f.optional = true;
    return f;
}

FamilyField only(FamilyField f, std::string key, std::vector<std::string> values) {
    f.whenKey = std::move(key);
    f.whenValues = std::move(values);
    return f;
}

FamilyField cliOnly(FamilyField f) {
    f.inForm = false;
    return f;
}

FamilyField startFromField(std::string key, std::string label, std::string help) {
    FamilyField f = textField(std::move(key), std::move(label), std::move(help));
    f.excludesResume = true;
    return f;
}

std::string numberText(double value) {
    for (int precision = 1; precision <= 17; ++precision) {
        std::ostringstream s;
        s.precision(precision);
        s << value;
        if (std::stod(s.str()) == value) return s.str();
    }
    std::ostringstream s;
    s.precision(17);
    s << value;
    return s.str();
}

std::string figureLine(const std::vector<std::pair<std::string, double>>& figures, const std::string& lead) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(3);
    for (std::size_t i = 0; i < figures.size(); ++i) os << (i == 0 ? lead : "  ") << figures[i].first << ' ' << figures[i].second;
    return os.str();
}

Result<Unit> registerFamily(ModelFamily family) {
    ensureBuiltins();
    return addFamily(std::move(family));
}

const ModelFamily* findFamily(const std::string& name) {
    ensureBuiltins();
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& f : r.families)
        if (f->name == name) return f.get();
    return nullptr;
}

Result<const ModelFamily*> familyOfFile(const std::string& path) {
    if (isScriptImport(path)) {
        for (const ModelFamily* f : modelFamilies())
            if (f->opensImports) return f;
        return Error{"'" + path + "' has no Saccade sidecar, and this build opens no imported models"};
    }
    auto info = readCheckpointInfo(path);
    if (!info) return Error{info.error()};
    if (const ModelFamily* f = findFamily(info->modelType)) return f;
    return Error{"checkpoint '" + path + "' holds a '" + info->modelType + "' model, which this version does not know"};
}

std::vector<const ModelFamily*> modelFamilies() {
    ensureBuiltins();
    auto& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<const ModelFamily*> out;
    for (const auto& f : r.families) out.push_back(f.get());
    return out;
}

Result<FamilySettings> checkSettings(const ModelFamily& family, const FamilySettings& given) {
    FamilySettings out;
    for (const auto& [key, value] : given) {
        const FamilyField* f = fieldOf(family, key);
        if (!f) return Error{"train " + family.name + " has no option --" + key};
        if (auto ok = checkValue(*f, value); !ok) return Error{ok.error()};
        out[key] = value;
    }
    for (const auto& f : family.fields)
        if (!out.count(f.key)) out[f.key] = f.value;
    return out;
}

bool fieldApplies(const FamilyField& f, const FamilySettings& settings) {
    if (f.whenKey.empty()) return true;
    const auto it = settings.find(f.whenKey);
    return it != settings.end() && std::find(f.whenValues.begin(), f.whenValues.end(), it->second) != f.whenValues.end();
}

std::string recreateCommand(const ModelFamily& family, const FamilyTrainRequest& request) {
    std::ostringstream c;
    c << "saccade-cli train " << family.name << " --" << family.datasetKey << ' ' << request.dataset;
    for (const auto& f : family.fields) {
        const auto it = request.settings.find(f.key);
        if (!f.recorded || it == request.settings.end() || !fieldApplies(f, request.settings)) continue;
        if (f.kind == FamilyField::Kind::Flag) {
            if (it->second == "true") c << " --" << f.key;
        } else if (!it->second.empty()) {
            c << " --" << f.key << ' ' << it->second;
        }
    }
    c << " --batch " << request.common.batch << " --seed " << request.common.seed;
    if (request.common.lr != family.defaults.lr) c << " --lr " << request.common.lr;
    return c.str();
}

std::int64_t intSetting(const FamilySettings& s, const std::string& key) {
    auto v = parseInteger(settingOf(s, key), key);
    if (!v) throw std::logic_error("the family setting '" + key + "' is not a whole number: " + v.error());
    return *v;
}

double realSetting(const FamilySettings& s, const std::string& key) {
    auto v = parseNumber(settingOf(s, key), key);
    if (!v) throw std::logic_error("the family setting '" + key + "' is not a number: " + v.error());
    return *v;
}

bool flagSetting(const FamilySettings& s, const std::string& key) { return settingOf(s, key) == "true"; }

const std::string& textSetting(const FamilySettings& s, const std::string& key) { return settingOf(s, key); }

std::int64_t SettingsReader::integer(const std::string& key) {
    m_read.insert(key);
    return intSetting(m_settings, key);
}

std::optional<std::int64_t> SettingsReader::optionalInteger(const std::string& key) {
    m_read.insert(key);
    if (settingOf(m_settings, key).empty()) return std::nullopt;
    return intSetting(m_settings, key);
}

double SettingsReader::real(const std::string& key) {
    m_read.insert(key);
    return realSetting(m_settings, key);
}

bool SettingsReader::flag(const std::string& key) {
    m_read.insert(key);
    return flagSetting(m_settings, key);
}

const std::string& SettingsReader::text(const std::string& key) {
    m_read.insert(key);
    return textSetting(m_settings, key);
}

TrainingMode attentionModeSetting(const FamilySettings& s, const std::string& key) {
    auto mode = parseAttentionTrainingMode(settingOf(s, key));
    if (!mode) throw std::logic_error("the family setting '" + key + "': " + mode.error());
    return *mode;
}

TrainingMode SettingsReader::attentionMode(const std::string& key) {
    m_read.insert(key);
    return attentionModeSetting(m_settings, key);
}

}  // namespace saccade
