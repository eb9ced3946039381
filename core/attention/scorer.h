#pragma once
// Attention scorers: how well each of L keys matches a query.
//   additive (Bahdanau):  v^T tanh(W q + U k)
//   dot (Luong):          q . k                 (needs queryDim == keyDim)
//   general (Luong):      q^T W k
//   scaled dot-product:   q . k / sqrt(d)        (needs queryDim == keyDim)
// Engine header: includes LibTorch; core's public plain-type API lives elsewhere.

#include <string>

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "common/result.h"

namespace saccade {

enum class ScorerKind { Additive, Dot, General, ScaledDot };

/// "additive", "dot", "general", "scaled-dot"; anything else is an Error listing them.
Result<ScorerKind> parseScorerKind(const std::string& name);
std::string scorerKindName(ScorerKind kind);

struct ScorerOptions {
    ScorerKind kind = ScorerKind::Additive;
    std::int64_t queryDim = 0;
    std::int64_t keyDim = 0;
    std::int64_t hiddenDim = 64;  ///< additive only: width of the tanh layer
};

class ScorerImpl : public torch::nn::Module {
public:
    explicit ScorerImpl(const ScorerOptions& options);

    /// query [B, Dq], keys [B, L, Dk], optional mask [B, L] (bool, true = may be attended).
    /// Returns scores [B, L] on the inputs' device; masked locations score -inf.
    /// Throws c10::Error on a shape mismatch or a row whose every location is masked.
    torch::Tensor forward(const torch::Tensor& query, const torch::Tensor& keys,
                          const torch::Tensor& mask = {});

    /// The query-independent part, computed once when one set of keys is scored many times:
    /// U k (additive), or the keys themselves (general applies W to the query instead). [B, L, *]
    torch::Tensor prepareKeys(const torch::Tensor& keys);
    /// forward() with keys already passed through prepareKeys().
    torch::Tensor forwardPrepared(const torch::Tensor& query, const torch::Tensor& preparedKeys,
                                  const torch::Tensor& mask = {});

    const ScorerOptions& options() const { return m_options; }

private:
    ScorerOptions m_options;
    torch::nn::Linear m_queryProj{nullptr};  // additive: W; general: unused
    torch::nn::Linear m_keyProj{nullptr};    // additive: U; general: W (Dk -> Dq)
    torch::nn::Linear m_v{nullptr};          // additive only
};
TORCH_MODULE(Scorer);

}  // namespace saccade
