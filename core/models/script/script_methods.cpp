#include "models/script/script_methods.h"

#include <algorithm>

#include <caffe2/serialize/inline_container.h>

#include "common/display_text.h"

namespace saccade {

bool methodFits(const torch::jit::Method& method, const std::vector<c10::TypeKind>& kinds) {
    const auto& schema = method.function().getSchema();
    const auto& args = schema.arguments();
    if (args.size() != kinds.size() + 1) return false;
    for (std::size_t i = 0; i < kinds.size(); ++i)
        if (args[i + 1].type()->kind() != kinds[i]) return false;
    if (schema.returns().size() != 1) return false;
    const auto dict = schema.returns()[0].type()->cast<c10::DictType>();
    return dict && dict->getKeyType()->kind() == c10::TypeKind::StringType &&
           dict->getValueType()->kind() == c10::TypeKind::TensorType;
}

std::string schemaText(const torch::jit::Method& method) {
    const auto& schema = method.function().getSchema();
    std::string text = method.name() + "(";
    const auto& args = schema.arguments();
    for (std::size_t i = 1; i < args.size(); ++i)
        text += (i > 1 ? ", " : "") + args[i].name() + ": " + args[i].type()->annotation_str();
    text += ") -> ";
    if (schema.returns().size() == 1) return text + schema.returns()[0].type()->annotation_str();
    text += "(";
    for (std::size_t i = 0; i < schema.returns().size(); ++i)
        text += (i > 0 ? ", " : "") + schema.returns()[i].type()->annotation_str();
    return text + ")";
}

Result<std::vector<std::string>> readStringList(const torch::jit::Module& module, const std::string& name) {
    if (!module.hasattr(name)) return Error{"it has no attribute " + name + ": List[str] (one entry per token id)"};
    const auto v = module.attr(name);
    if (!v.isList()) return Error{"its " + name + " must be a List[str], not " + v.tagKind()};
    const auto& items = v.toListRef();
    if (items.size() > kMaxVocabularyEntries)
        return Error{"its " + name + " holds " + std::to_string(items.size()) + " entries; Saccade reads at most " +
                     std::to_string(kMaxVocabularyEntries)};
    std::vector<std::string> words;
    for (const auto& item : items) {
        if (!item.isString())
            return Error{"its " + name + " must be a List[str]: entry " + std::to_string(words.size()) + " is " + item.tagKind()};
        // Each token is shown on terminals, in HTML and in the GUI: the same door as class names.
        auto shown = checkDisplayText(item.toStringRef(), "its " + name + " entry " + std::to_string(words.size()),
                                      kMaxTokenBytes);
        if (!shown) return Error{shown.error()};
        words.push_back(std::move(*shown));
    }
    if (words.empty()) return Error{"its " + name + " is empty"};
    return words;
}

Result<int> readTokenId(const torch::jit::Module& module, const std::string& name, std::size_t vocabulary) {
    if (!module.hasattr(name)) return -1;
    const auto e = module.attr(name);
    if (!e.isInt()) return Error{"its " + name + " must be an int, not " + e.tagKind()};
    const auto id = e.toInt();
    if (id < 0 || id >= std::int64_t(vocabulary))
        return Error{"its " + name + " " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabulary) +
                     " words"};
    return int(id);
}

std::string dtypeName(const torch::Tensor& t) { return std::string(c10::toString(t.scalar_type())); }

namespace {

std::string recordText(caffe2::serialize::PyTorchStreamReader& reader, const std::string& name) {
    const auto [data, size] = reader.getRecord(name);
    return std::string(static_cast<const char*>(data.get()), size);
}

// data.pkl names the top module's class first ("c__torch__\nTranslator\n"), and its code lies in
// code/__torch__[/...].py as "class NAME(".
std::string topClassCodeIn(caffe2::serialize::PyTorchStreamReader& reader) {
    if (!reader.hasRecord("data.pkl")) return {};
    const auto pickle = recordText(reader, "data.pkl").substr(0, 4096);
    const auto global = pickle.find("c__torch__");
    if (global == std::string::npos) return {};
    const auto moduleEnd = pickle.find('\n', global);
    const auto nameEnd = moduleEnd == std::string::npos ? moduleEnd : pickle.find('\n', moduleEnd + 1);
    if (nameEnd == std::string::npos) return {};
    std::string file = pickle.substr(global + 1, moduleEnd - global - 1);
    std::replace(file.begin(), file.end(), '.', '/');
    const auto name = pickle.substr(moduleEnd + 1, nameEnd - moduleEnd - 1);
    if (!reader.hasRecord("code/" + file + ".py")) return {};
    const auto code = recordText(reader, "code/" + file + ".py");
    const auto start = code.find("class " + name + "(");
    if (start == std::string::npos) return {};
    const auto end = code.find("\nclass ", start + 1);
    return code.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::string topClassCode(const std::string& path) {
    try {
        caffe2::serialize::PyTorchStreamReader reader(path);
        return topClassCodeIn(reader);
    } catch (const std::exception&) {
        return {};  // not a TorchScript archive
    }
}

bool topClassDefines(const std::string& path, const std::string& method) {
    return topClassCode(path).find("def " + method + "(self") != std::string::npos;
}

}  // namespace saccade
