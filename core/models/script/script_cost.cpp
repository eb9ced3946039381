#include "models/script/script_cost.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <ATen/record_function.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "models/cost_stages.h"
#include "models/script/script_archive.h"
#include "models/script/script_captioner.h"
#include "models/script/script_model.h"
#include "models/script/script_text_encoder.h"
#include "models/script/script_translator.h"

namespace saccade {

namespace {

// Multiply-adds of the convolutions and matrix products dispatched on this thread while a
// MacCounter lives; an operation inside a counted one (conv2d's convolution, linear's addmm) is
// not counted again.
thread_local double t_macs = 0;
thread_local int t_depth = 0;

const std::set<std::string>& countedOperations() {
    static const std::set<std::string> names{"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution",
                                             "aten::_convolution", "aten::linear", "aten::matmul", "aten::mm",
                                             "aten::bmm", "aten::addmm", "aten::baddbmm"};
    return names;
}

std::vector<std::int64_t> intList(const c10::IValue& v, size_t n, std::int64_t fallback) {
    std::vector<std::int64_t> out(n, fallback);
    if (v.isIntList()) {
        const auto l = v.toIntVector();
        for (size_t i = 0; i < n && !l.empty(); ++i) out[i] = l[std::min(i, l.size() - 1)];
    } else if (v.isInt()) {
        std::fill(out.begin(), out.end(), v.toInt());
    }
    return out;
}

// A convolution's multiply-adds: input [N, C, *spatial], weight [O, C/g, *kernel], its stride,
// padding (a list, or "same" or "valid") and dilation; 0 for a transposed one.
double convolutionMacs(const std::vector<c10::IValue>& a, bool transposed) {
    if (transposed || a.size() < 6 || !a[0].isTensor() || !a[1].isTensor()) return 0;
    const auto& x = a[0].toTensor();
    const auto& w = a[1].toTensor();
    if (x.dim() < 3 || w.dim() != x.dim()) return 0;
    const size_t dims = size_t(x.dim() - 2);
    const auto stride = intList(a[3], dims, 1), dilation = intList(a[5], dims, 1);
    const bool same = a[4].isString() && a[4].toStringRef() == "same";
    const auto padding = intList(a[4], dims, 0);
    double outputs = double(x.size(0)) * double(w.size(0));
    for (size_t i = 0; i < dims; ++i) {
        const auto in = x.size(std::int64_t(i) + 2), k = w.size(std::int64_t(i) + 2);
        outputs *= same ? double(in) : double((in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1);
    }
    return outputs * double(w.numel() / w.size(0));
}

// The multiply-adds of one counted operation, from its arguments (the schema's, in order).
double operationMacs(const std::string& name, const std::vector<c10::IValue>& a) {
    auto tensor = [&a](size_t i) { return i < a.size() && a[i].isTensor() ? a[i].toTensor() : at::Tensor(); };
    if (name.find("conv") != std::string::npos)
        return convolutionMacs(a, name != "aten::conv1d" && name != "aten::conv2d" && name != "aten::conv3d" &&
                                      a.size() > 6 && a[6].isBool() && a[6].toBool());
    if (name == "aten::linear") {
        const auto x = tensor(0), w = tensor(1);
        return x.defined() && w.defined() ? double(x.numel()) * double(w.size(0)) : 0;
    }
    const size_t first = (name == "aten::addmm" || name == "aten::baddbmm") ? 1 : 0;
    const auto l = tensor(first), r = tensor(first + 1);
    if (!l.defined() || !r.defined() || l.dim() < 1 || r.dim() < 1) return 0;
    if (r.dim() == 1) return double(l.numel());
    if (l.dim() == 1) return double(r.numel());
    // [.., n, k] x [.., k, m]: every output element a dot product of length k, batch dims broadcast.
    return std::max(double(l.numel()) * double(r.size(-1)), double(r.numel()) * double(l.size(-2)));
}

std::unique_ptr<at::ObserverContext> countStart(const at::RecordFunction& fn) {
    if (!countedOperations().count(fn.name())) return nullptr;
    if (t_depth++ > 0) return nullptr;
    // The interpreter may hand more of its stack than the operation's arguments: the last ones are.
    const auto op = fn.operator_name();
    const auto handle = op ? c10::Dispatcher::singleton().findSchema(*op) : c10::nullopt;
    const auto inputs = fn.inputs();
    const size_t count = handle ? std::min(inputs.size(), handle->schema().arguments().size()) : inputs.size();
    const std::vector<c10::IValue> args(inputs.end() - std::ptrdiff_t(count), inputs.end());
    t_macs += operationMacs(fn.name(), args);
    return nullptr;
}

void countEnd(const at::RecordFunction& fn, at::ObserverContext*) {
    if (countedOperations().count(fn.name())) --t_depth;
}

class MacCounter {
public:
    MacCounter() {
        t_macs = 0;
        t_depth = 0;
        m_handle = at::addThreadLocalCallback(at::RecordFunctionCallback(countStart, countEnd).needsInputs(true));
    }
    ~MacCounter() { at::removeCallback(m_handle); }
    double macs() const { return t_macs; }

private:
    at::CallbackHandle m_handle;
};

// forward's graph inlined, cut down to the value its dict returns under the attention's key (or
// `features`, which the attention reads): the part of the model that runs before it is known.
struct Slice {
    std::shared_ptr<torch::jit::GraphFunction> function;
    std::string key;
};

Result<Slice> sliceUpToAttention(torch::jit::Module& module) {
    auto& forward = torch::jit::toGraphFunction(module.get_method("forward").function());
    auto graph = forward.graph()->copy();
    torch::jit::Inline(*graph);
    torch::jit::Node* dict = graph->outputs().at(0)->node();
    if (dict->kind() != c10::prim::DictConstruct)
        return Error{"forward builds its dict step by step, so the part of its graph before the attention cannot be cut "
                     "out: return the dict as one expression {\"logits\": ..., \"attention\": ...}"};
    std::map<std::string, torch::jit::Value*> values;
    for (size_t i = 0; i + 1 < dict->inputs().size(); i += 2) {
        const auto key = torch::jit::toIValue(dict->inputs()[i]);
        if (key && key->isString()) values[key->toStringRef()] = dict->inputs()[i + 1];
    }
    Slice s;
    for (const char* key : {"features", "attention", "locations", "attentions"})
        if (values.count(key)) {
            s.key = key;
            break;
        }
    if (s.key.empty()) return Error{"forward's dict names none of its keys as constants; its attention cannot be found in its graph"};
    graph->eraseOutput(0);
    graph->registerOutput(values[s.key]);
    torch::jit::EliminateDeadCode(graph);
    s.function = std::make_shared<torch::jit::GraphFunction>("saccade_up_to_attention", graph, nullptr);
    return s;
}

}  // namespace

Result<std::vector<RuleCost>> scriptImportCost(const std::string& path, CostRun& run) {
    auto opened = openScriptArchive(path, run.device.str());
    if (!opened) return Error{opened.error()};
    auto archive = &opened.value();
    if (ScriptTranslator::isTranslator(*archive) || ScriptCaptioner::isCaptioner(*archive))
        return Error{"an imported " + std::string(ScriptTranslator::isTranslator(*archive) ? "translator" : "captioner") +
                     " makes its attention word by word inside its decoding loop, so its graph has no part that runs "
                     "before the attention; the cost view splits the forward of an imported classifier"};
    if (ScriptTextEncoder::isTextEncoder(*archive))
        return Error{"an imported text encoder reads text, and the cost view splits the forward of an imported image "
                     "classifier at its attention; an encoder's self-attention is inside every layer"};
    auto model = ScriptModel::load(*archive);
    if (!model) return Error{model.error()};
    auto slice = sliceUpToAttention(archive->module);
    if (!slice) return Error{slice.error()};
    torch::NoGradGuard noGrad;
    const int batch = run.options.batch;
    const auto x = torch::full({batch, (*model)->channels(), (*model)->imageSize(), (*model)->imageSize()}, 0.5,
                               torch::TensorOptions().device(run.device));
    auto& module = archive->module;
    auto upTo = [&] {
        torch::jit::Stack stack{module._ivalue(), x};
        slice->function->run(stack);
    };
    for (int i = 0; i < 2; ++i) upTo(), module.forward({x});  // the profiling executor's first calls
    const auto seconds = run.medianStages([&] {
        run.clock.start();
        module.forward({x});
        run.clock.lap("whole");
        upTo();
        run.clock.lap("up to");
    });
    double whole = 0, before = 0;
    for (const auto& [stage, s] : seconds) (stage == "whole" ? whole : before) = s;
    double macsWhole = 0, macsBefore = 0;
    {
        MacCounter counter;
        module.forward({x});
        macsWhole = counter.macs();
    }
    {
        MacCounter counter;
        upTo();
        macsBefore = counter.macs();
    }
    const std::string first = "up to '" + slice->key + "'";
    const std::string second = slice->key == "features" ? "after it (attention, head)" : "after it (head)";
    auto cost = makeRuleCost("imported", (*model)->deterministicRule(),
                             {{first, before}, {second, std::max(0.0, whole - before)}}, batch,
                             {{first, 2 * macsBefore / batch}, {second, 2 * std::max(0.0, macsWhole - macsBefore) / batch}});
    cost.allFeaturesFirst = slice->key == "features";
    const double share = macsWhole > 0 ? 100 * macsBefore / macsWhole : 0;
    cost.note = std::to_string(int(share + 0.5)) + "% of the counted FLOPs run before the attention is known (" +
                slice->key + " depends on them), so selection cannot have saved them; FLOPs count convolutions and " +
                "matrix products only";
    return std::vector<RuleCost>{cost};
}

}  // namespace saccade
