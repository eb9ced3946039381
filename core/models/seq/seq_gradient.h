#pragma once
// The sequence networks' SeqGradientForward (models/seq_gradient_forward.h): the encoder read from
// embedding rows the caller hands in, the decoder teacher-forced along a target, the weights kept
// out of the graph. forced() may be called from two threads at once (the weights' gradient flags are
// switched under a lock for the forward; the backward passes need no lock). Engine header.

#include <functional>
#include <memory>
#include <mutex>

#include "attention/selection.h"
#include "data/seq_task.h"
#include "models/seq/seq_net.h"
#include "models/seq_gradient_forward.h"

namespace saccade {

class SeqNetGradient : public SeqGradientForward {
public:
    /// `rule` parses a rule name as the model does (soft, argmax, sample; empty: its own).
    using RuleParser = std::function<Result<SelectionOptions>(const std::string&)>;
    SeqNetGradient(std::shared_ptr<SeqNetBase> net, std::shared_ptr<const SeqTask> task, torch::Device device,
                   std::vector<std::string> rules, RuleParser rule);

    std::vector<std::string> rules() const override { return m_rules; }
    bool hasLayerAttention() const override { return m_net->config().transformer(); }
    Result<SeqForcedInput> prepare(const std::vector<std::string>& source, const std::vector<std::string>& target) override;
    SeqForcedOutput forced(const torch::Tensor& embedded, const torch::Tensor& source, const torch::Tensor& input,
                           const std::string& rule) override;
    /// layerGroupsFromTop over the network (models/parameter_groups.h): the output projection
    /// first, the encoder's layers, then the target and source embedding tables.
    std::vector<ParameterGroup> parameterGroups() override;

private:
    std::shared_ptr<SeqNetBase> m_net;
    std::shared_ptr<const SeqTask> m_task;
    torch::Device m_device;
    std::vector<std::string> m_rules;
    RuleParser m_rule;
    std::mutex m_freeze;  // forward passes on two threads (one model on both sides of the page) freeze in turn
};

}  // namespace saccade
