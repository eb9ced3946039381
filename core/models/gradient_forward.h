#pragma once
// GradientForward: what attribution methods (analysis/attribution.h) ask of an image classifier:
// a batched forward that autograd can differentiate with respect to the input pixels, and, where
// the answer is read from a convolutional feature grid, that grid (for Grad-CAM); for the
// model-randomisation sanity check (analysis/sanity_check.h), its parameters grouped by layer from
// the output down. A model hands one out through AttentionModel::gradientForward(); the methods
// never ask which family it is. A soft-attention model also hands out its head on an attention
// distribution of the caller's choosing (attentionHead), for analysis/adversarial_attention.h.
// A model whose first layer is affine in the pixels may hand out its forward split there
// (affineInputSplit), which integrated gradients use to run that layer twice instead of per point.
// Engine header: includes LibTorch.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

namespace saccade {

/// A convolutional feature grid and the logits computed from it in the same graph.
struct GridForward {
    torch::Tensor grid;    ///< [B, D, g, g], part of the graph that gives `logits`; undefined: none
    torch::Tensor logits;  ///< [B, classes]
};

/// A transformer's forward with every layer's attention in the graph of its logits (for
/// gradient-weighted rollout), and where the patch grid lies among its tokens.
struct AttentionGraph {
    torch::Tensor logits;                   ///< [B, classes]
    std::vector<torch::Tensor> attentions;  ///< per layer [B, heads, tokens, tokens], in the graph of `logits`
    int prefix = 0;                         ///< tokens before the patch grid (CLS, registers)
    int readout = 0;                        ///< the token whose row is the map (CLS: 0)
    int gridRows = 0, gridCols = 0;         ///< the patch grid, row-major after the prefix
};

/// One layer's parameters: the model's own tensors (writing them writes the model).
struct ParameterGroup {
    std::string name;  ///< the layer's path in the network ("classifier", "layers.3", "encoder.0")
    std::vector<torch::Tensor> tensors;
};

/// A soft-attention model's images encoded once, and its head run on any attention distribution
/// over its cells (Jain and Wallace 2019: how far attention can move without changing the answer).
struct AttentionHead {
    torch::Tensor attention;  ///< [B, T, L] the model's own soft attention per step, no graph
    torch::Tensor logits;     ///< [B, classes] its logits under that attention, no graph
    int rows = 0, cols = 0;   ///< the grid of the L = rows x cols cells, row-major
    /// Logits [B, classes] with `attention` [B, T, L] (each row a distribution) put in place of the
    /// model's at every step: the context is the attention-weighted sum of the cell features.
    /// The graph reaches `attention`, not the images. Valid while the model lives; not thread-safe.
    std::function<torch::Tensor(const torch::Tensor&)> run;
};

/// A forward split after a first layer that is affine in the pixels (a convolution or a linear map
/// with nothing after it): logits(x) = rest(affine(x)). Along a straight path x_a = b + a (x - b)
/// the features are affine(b) + a (affine(x) - affine(b)), so integrated gradients run `affine` on
/// the path's two ends only and pull the weighted sum of the path's gradients back through it
/// once (Sundararajan et al. 2017's sum, reassociated; analysis/attribution_gradients.h).
struct AffineInputSplit {
    /// Features [B, ...] of images [B, C, S, S] in [0, 1]: the first layer alone, affine in the
    /// images; autograd differentiates it.
    std::function<torch::Tensor(const torch::Tensor& images)> affine;
    /// Logits [P, classes] under `rule` of the features start + alphas[p] * direction (start and
    /// direction [1, ...] from `affine`, alphas [P] on their device and dtype). The graph reaches
    /// `start` and `direction`; a model may run the layers after `affine` on the factored path
    /// without forming the [P, ...] features.
    std::function<torch::Tensor(const torch::Tensor& start, const torch::Tensor& direction, const torch::Tensor& alphas,
                                const std::string& rule)>
        pathLogits;
};

class GradientForward {
public:
    virtual ~GradientForward() = default;

    /// The device the model's weights live on; inputs go there.
    virtual torch::Device device() const = 0;
    /// The rule differentiated when the caller names none: the model's deterministic one.
    virtual std::string defaultRule() const = 0;
    /// Logits [B, classes] of images [B, C, S, S] in [0, 1] (the model's size and channels) under
    /// `rule` (a deterministic rule of the model; others raise c10::Error naming the accepted
    /// ones). The graph reaches the images: autograd gives d logits / d images. Nothing is
    /// sampled. Not thread-safe, as the model.
    virtual torch::Tensor logits(const torch::Tensor& images, const std::string& rule) = 0;
    /// The feature grid the answer is read from and the logits from it, under `rule`; an
    /// undefined grid when the model has none (the default).
    virtual GridForward gridForward(const torch::Tensor& images, const std::string& rule) {
        (void)images;
        (void)rule;
        return {};
    }
    /// Whether gridForward gives a grid, without running it.
    virtual bool hasFeatureGrid() const { return false; }
    /// The forward with every layer's attention in the graph; empty attentions when the model has
    /// none it can hand out (the default).
    virtual AttentionGraph attentionGraph(const torch::Tensor& images, const std::string& rule) {
        (void)images;
        (void)rule;
        return {};
    }
    /// Whether attentionGraph gives attention, without running it.
    virtual bool hasAttentionGraph() const { return false; }
    /// The model's parameters grouped by layer, the output layer first and the input layer last
    /// (models/parameter_groups.h); empty where the model does not offer them (the default).
    /// Whoever writes the tensors calls weightsChanged() after, and restores them.
    virtual std::vector<ParameterGroup> parameterGroups() { return {}; }
    /// Tells the model its weights were written, so that it drops what it cached from them (a
    /// transformer's last attention maps).
    virtual void weightsChanged() {}
    /// The soft-attention head of images [B, C, S, S] in [0, 1]: an empty `run` when the model
    /// has no soft attention over cells to replace (the default).
    virtual AttentionHead attentionHead(const torch::Tensor& images) {
        (void)images;
        return {};
    }
    /// Whether attentionHead gives a head, without running it.
    virtual bool hasAttentionHead() const { return false; }
    /// The forward split after its affine first layer; empty functions when the model has no such
    /// split (the default), and attribution then differentiates logits() at every point.
    /// Valid while the model lives; not thread-safe, as the model.
    virtual AffineInputSplit affineInputSplit() { return {}; }
    /// Whether affineInputSplit gives a split, without asking for it.
    virtual bool hasAffineInputSplit() const { return false; }
    /// Why the logits have no gradient with respect to the pixels (a sensor that detaches them),
    /// so no input-gradient method applies; empty when they have one (the default).
    virtual std::string noInputGradient() const { return {}; }
    /// What the model would need to give a feature grid, or attention in its graph, where it
    /// gives none (an import: the contract's `features` output); empty: nothing to add (the default).
    virtual std::string featureGridHint() const { return {}; }
    virtual std::string attentionGraphHint() const { return {}; }
};

/// A GradientForward made of a family's functions: what a model's Impl keeps and hands out.
class FunctionGradientForward : public GradientForward {
public:
    using Logits = std::function<torch::Tensor(const torch::Tensor&, const std::string&)>;
    using Grid = std::function<GridForward(const torch::Tensor&, const std::string&)>;
    /// The parameter groups, top first, and what to do when the weights were written (either empty).
    struct Weights {
        std::function<std::vector<ParameterGroup>()> groups;
        std::function<void()> changed;
    };
    /// `grid` empty: the model has no feature grid; `weights.groups` empty: no parameter groups.
    FunctionGradientForward(torch::Device device, std::string defaultRule, Logits logits, Grid grid = {},
                            Weights weights = {})
        : m_device(device), m_rule(std::move(defaultRule)), m_logits(std::move(logits)), m_grid(std::move(grid)),
          m_weights(std::move(weights)) {}

    torch::Device device() const override { return m_device; }
    std::string defaultRule() const override { return m_rule; }
    torch::Tensor logits(const torch::Tensor& images, const std::string& rule) override {
        return m_logits(images, rule);
    }
    GridForward gridForward(const torch::Tensor& images, const std::string& rule) override {
        return m_grid ? m_grid(images, rule) : GridForward{};
    }
    bool hasFeatureGrid() const override { return bool(m_grid); }
    using Attention = std::function<AttentionGraph(const torch::Tensor&, const std::string&)>;
    /// Gives the model's attention graph (transformers).
    void setAttentionGraph(Attention attention) { m_attention = std::move(attention); }
    AttentionGraph attentionGraph(const torch::Tensor& images, const std::string& rule) override {
        return m_attention ? m_attention(images, rule) : AttentionGraph{};
    }
    bool hasAttentionGraph() const override { return bool(m_attention); }
    std::vector<ParameterGroup> parameterGroups() override {
        return m_weights.groups ? m_weights.groups() : std::vector<ParameterGroup>{};
    }
    void weightsChanged() override {
        if (m_weights.changed) m_weights.changed();
    }
    using Head = std::function<AttentionHead(const torch::Tensor&)>;
    /// Gives the model's soft-attention head (soft attention over a grid of cells).
    void setAttentionHead(Head head) { m_head = std::move(head); }
    AttentionHead attentionHead(const torch::Tensor& images) override {
        return m_head ? m_head(images) : AttentionHead{};
    }
    bool hasAttentionHead() const override { return bool(m_head); }
    /// Gives the model's split after its affine first layer (both functions set).
    void setAffineInputSplit(AffineInputSplit split) { m_split = std::move(split); }
    AffineInputSplit affineInputSplit() override { return m_split; }
    bool hasAffineInputSplit() const override { return m_split.affine && m_split.pathLogits; }
    /// Says why the logits do not reach the pixels (the parameter groups may still be randomised).
    void setNoInputGradient(std::string why) { m_noInputGradient = std::move(why); }
    std::string noInputGradient() const override { return m_noInputGradient; }
    /// Says what the model would need for Grad-CAM and for gradient-weighted rollout.
    void setHints(std::string featureGrid, std::string attentionGraph) {
        m_featureGridHint = std::move(featureGrid);
        m_attentionGraphHint = std::move(attentionGraph);
    }
    std::string featureGridHint() const override { return m_featureGridHint; }
    std::string attentionGraphHint() const override { return m_attentionGraphHint; }

private:
    std::string m_noInputGradient, m_featureGridHint, m_attentionGraphHint;
    AffineInputSplit m_split;
    Attention m_attention;
    Head m_head;
    torch::Device m_device;
    std::string m_rule;
    Logits m_logits;
    Grid m_grid;
    Weights m_weights;
};

}  // namespace saccade
