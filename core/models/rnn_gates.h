#pragma once
// The gate arithmetic of the GRU and the LSTM, each in one pass (the matrix products stay with
// the caller).
//
// GRU:
//   r = sigmoid(a_r + b_r), z = sigmoid(a_z + b_z), n = tanh(a_n + r * b_n),
//   h' = keep * ((1 - z) * n + z * h)
// with a = W_ih x + b_ih and b = W_hh h + b_hh, each [B, 3H] in PyTorch's gate order (r, z, n).
// LSTM (PyTorch's gate order i, f, g, o), from the summed pre-activations x = W_ih x + b_ih +
// W_hh h + b_hh [B, 4H]:
//   c' = sigmoid(x_f) * c + sigmoid(x_i) * tanh(x_g),   h' = sigmoid(x_o) * tanh(c')
//
// ATen's cells spend eight or more kernels and eight autograd nodes on this per step; at a batch of
// 64 or a hidden size of 128 those dominate the step. Here it is one loop forward and one loop
// backward (its own autograd node) on contiguous float CPU tensors, and the same arithmetic in
// ATen operations anywhere else (CUDA, double, strided views).
// Engine header: includes LibTorch.

#include <utility>

#include <torch/types.h>

namespace saccade {

/// a, b [B, 3H]; h [B, H]; keep [B] (1 keeps the new state, 0 zeroes it: a padded position) or
/// undefined. Differentiable in a, b and h.
torch::Tensor gruGates(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                       const torch::Tensor& keep = {});

/// The same arithmetic as eight ATen operations (the reference the fused loop is tested against).
torch::Tensor gruGatesReference(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& h,
                                const torch::Tensor& keep = {});

/// One GRU step without autograd, for inference on float CPU tensors: row i's input gates are
/// table[ids[i]] + extra[i], its hidden gates b[i] + bias.
struct GruTableStep {
    torch::Tensor table;  ///< [V, 3H] = W_ih E + b_ih
    torch::Tensor ids;    ///< [B] int64, each checked to lie in 0..V-1
    torch::Tensor extra;  ///< [B, 3H] added to the input gates (rows may be strided), or undefined
    torch::Tensor b;      ///< [B, 3H] = W_hh h, contiguous
    torch::Tensor bias;   ///< [3H] added to b (b_hh), or undefined
    torch::Tensor h;      ///< [B, H], rows may be strided
    torch::Tensor keep;   ///< [B] as for gruGates, or undefined
};
/// gruGates for a GruTableStep: h' is written into `out` [B, H] (rows may be strided), which
/// must not overlap the inputs.
void gruGatesFromTable(const GruTableStep& step, torch::Tensor& out);

/// out[i] = a[ia[i]] + scale[i] * b[ib[i]] (+ bias) in one pass, for inference steps that read
/// their inputs from per-word and per-cell tables: a [Va, N], b [Vb, N] contiguous float CPU
/// tables, ia and ib [B] int64 (each checked to lie in its table), scale [B] (or [B, 1]), bias
/// [N] or undefined, out [B, N] contiguous and not overlapping the inputs. No gradients.
void tableRowsInto(const torch::Tensor& a, const torch::Tensor& ia, const torch::Tensor& b, const torch::Tensor& ib,
                   const torch::Tensor& scale, const torch::Tensor& bias, torch::Tensor& out);

/// gates [B, 4H], c [B, H]: returns {h', c'}, differentiable in both inputs.
std::pair<torch::Tensor, torch::Tensor> lstmGates(const torch::Tensor& gates, const torch::Tensor& c);

/// The same in ATen operations.
std::pair<torch::Tensor, torch::Tensor> lstmGatesReference(const torch::Tensor& gates, const torch::Tensor& c);

}  // namespace saccade
