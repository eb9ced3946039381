#include "models/seq/seq_gradient.h"

#include <algorithm>

#include <torch/torch.h>

#include "models/parameter_groups.h"
#include "models/seq/seq_batch.h"
#include "models/translator.h"

namespace saccade {

namespace {

// Turns off the gradients of a module's parameters for its lifetime, and back on after: the graph
// of an attribution reaches the inputs only.
class FrozenParameters {
public:
    explicit FrozenParameters(torch::nn::Module& module) : m_params(module.parameters()) {
        for (auto& p : m_params) {
            m_was.push_back(p.requires_grad());
            p.set_requires_grad(false);
        }
    }
    ~FrozenParameters() {
        for (std::size_t i = 0; i < m_params.size(); ++i) m_params[i].set_requires_grad(m_was[i]);
    }
    FrozenParameters(const FrozenParameters&) = delete;
    FrozenParameters& operator=(const FrozenParameters&) = delete;

private:
    std::vector<torch::Tensor> m_params;
    std::vector<bool> m_was;
};

}  // namespace

SeqNetGradient::SeqNetGradient(std::shared_ptr<SeqNetBase> net, std::shared_ptr<const SeqTask> task,
                               torch::Device device, std::vector<std::string> rules, RuleParser rule)
    : m_net(std::move(net)), m_task(std::move(task)), m_device(device), m_rules(std::move(rules)),
      m_rule(std::move(rule)) {}

Result<SeqForcedInput> SeqNetGradient::prepare(const std::vector<std::string>& source,
                                               const std::vector<std::string>& target) {
    if (source.empty() || target.empty()) return Error{"an empty source or target has no attribution"};
    if (source.size() > kMaxSeqTokens)
        return Error{"the source holds " + std::to_string(source.size()) + " tokens; at most " +
                     std::to_string(kMaxSeqTokens) + " are read"};
    for (const auto& token : target)
        if (!m_task->targetVocab().contains(token))
            return Error{"'" + token + "' is not a token the model writes (its output vocabulary has " +
                         std::to_string(m_task->targetVocab().size()) + " tokens)"};
    SeqSample sample;
    sample.source = source;
    sample.target = target;
    const auto batch = makeSeqBatch(*m_task, {sample}, m_device);
    SeqForcedInput in;
    in.source = batch.source;
    in.input = batch.input;
    torch::NoGradGuard noGrad;
    in.embedded = m_net->embedSource(batch.source).detach();
    in.unknown = m_net->embedSource(torch::full({1, 1}, kSeqUnknown, batch.source.options())).reshape({-1}).detach();
    const auto ids = batch.output[0].to(torch::kCPU).contiguous();
    for (std::size_t t = 0; t <= target.size(); ++t) in.targetIds.push_back(ids[std::int64_t(t)].item<std::int64_t>());
    return in;
}

SeqForcedOutput SeqNetGradient::forced(const torch::Tensor& embedded, const torch::Tensor& source,
                                       const torch::Tensor& input, const std::string& ruleName) {
    TORCH_CHECK(std::find(m_rules.begin(), m_rules.end(), ruleName) != m_rules.end(), "rule '", ruleName,
                "' cannot be differentiated here (use ", m_rules.front(), ")");
    const auto rule = m_rule(ruleName);
    TORCH_CHECK(rule.ok(), rule ? std::string() : rule.error());
    const std::lock_guard<std::mutex> lock(m_freeze);
    FrozenParameters frozen(*m_net);
    const auto B = embedded.size(0), S = embedded.size(1);
    const auto lengths = torch::full({B}, S, torch::kLong);
    const auto enc = m_net->encodeEmbedded(embedded, source, lengths);
    Rng rng(1);  // deterministic rules draw nothing
    const auto steps = m_net->teacherForced(enc, input, *rule, rng);
    return {steps.logits, steps.alpha, steps.cross, steps.encoderSelf};
}

std::vector<ParameterGroup> SeqNetGradient::parameterGroups() {
    // Registration order, reversed, is top first for every Saccade sequence network; the source
    // embedding table comes last, so that the end of the cascade is a model with nothing learnt.
    auto groups = layerGroupsFromTop(*m_net);
    const auto src =
        std::find_if(groups.begin(), groups.end(), [](const ParameterGroup& g) { return g.name == "src_embed"; });
    if (src != groups.end()) std::rotate(src, std::next(src), groups.end());
    return groups;
}

}  // namespace saccade
