#pragma once
// The atlas: the queries and keys of one attention head over many inputs, placed in one 2-D map
// (after AttentionViz, Yeh et al., IEEE VIS 2023), so that a head that attends by position, by
// content or by token type shows as a shape. The model runs on the first N inputs of its own test
// data, or of another dataset, under a QkvCapture (analysis/model_attention_inputs.h): Saccade's
// ViT (every layer) and its sequence Transformers (the encoder's self-attention, the decoder's
// causal self-attention and its cross-attention over the source). Before the embedding, the keys are moved
// so that their mean is the queries' mean, and queries and keys are scaled by s and 1/s so that
// their mean norms are equal: neither changes any query's attention (a shift of every key adds
// the same number to each of a query's scores; the scaling keeps every dot product), and then
// nearby points mean high attention. Engine header: includes LibTorch (through its sources).

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/atlas/embedding_2d.h"
#include "common/result.h"

namespace saccade {

struct AtlasOptions {
    std::int64_t limit = 40;  ///< inputs (test images or sentences), the first N
    int layer = 1;            ///< 1-based, as the model names its layers
    int head = 1;             ///< 1-based
    /// "encoder" (a ViT's or an encoder's self-attention), "decoder" (a decoder's causal
    /// self-attention) or "cross" (a decoder's queries over the encoder's keys).
    std::string attention = "encoder";
    /// "" (the model's own test split), or the request's dataset (models/model_family.h): a
    /// dataset name or image folder for a ViT, a text file of sentences for a sequence model.
    std::string dataset;
    Embedding2dOptions embedding;
};

/// The attentions the atlas places, in the order --attention lists them.
const std::vector<std::string>& atlasAttentions();

struct AtlasPoint {
    int input = 0;         ///< index of the input among the N (its test index)
    int position = 0;      ///< token or patch position in the input (cross: a query's in the decoder, a key's in the source)
    bool query = true;     ///< a query, or a key
    std::string label;     ///< the token ("3", "M"), "[CLS]", or the patch's "row,col"
    double x = 0, y = 0;
    int attends = -1;      ///< a query: the position of the key it attends to most (-1 for a key)
};

struct Atlas {
    std::string model, layerName, method;
    std::string modelLayer;  ///< the layer as the model names it ("encoder layer 2"; layerName adds the file)
    std::string attention = "encoder";  ///< as AtlasOptions::attention
    int layer = 0, head = 0, layers = 0, heads = 0;
    std::int64_t inputs = 0, headDim = 0;
    std::string positions;        ///< "patch" (a ViT: position 0 is [CLS]) or "token"
    int gridCols = 0;             ///< a ViT's patches per row
    double keyShiftNorm = 0;      ///< |mean(q) - mean(k)|, the shift applied to every key
    double scale = 1;             ///< s: queries times s, keys divided by s
    std::vector<AtlasPoint> points;
    std::string dataset;                 ///< a ViT's dataset: input i is its test image i
    std::vector<std::string> sentences;  ///< a sequence model's inputs: test sentence i, as text
    /// decoder and cross: per sentence, the tokens the decoder's positions read ("<s>", then the
    /// model's own translation but its last token)
    std::vector<std::vector<std::string>> decoderTokens;
    double seconds = 0;
};

/// The atlas of `modelPath` under `options`. Errors, one line each: a model whose attention has
/// no queries and keys that Saccade captures (with the reason), a layer or head out of range,
/// a limit < 1, the embedding's own errors, "cancelled" when `progress` returned false.
Result<Atlas> buildAtlas(const std::string& modelPath, const AtlasOptions& options,
                         const std::function<bool(double)>& progress = {});

/// How far apart positions `p` and `q` are: tokens by index; a ViT's patches on their grid (the
/// larger of the row and column steps), [CLS] 3 from every patch.
int atlasPositionsApart(const Atlas& atlas, int p, int q);

/// Per query, how far (atlasPositionsApart, 3 meaning 3 or more) it is from the key it attends to
/// most, from its nearest key of its input in the map, and from a key of its input drawn at random
/// (chance): the share of queries at 0, 1, 2 and 3 or more; these only where queries and keys are
/// one sequence's positions (`positional`; not cross-attention). For every attention: the share
/// of queries whose nearest key of its input in the map is the key it attends to most, and that
/// share for a key of its input drawn at random.
struct AtlasOffsets {
    std::array<double, 4> attended{}, nearest{}, chance{};
    bool positional = true;
    double nearestIsAttended = 0, chanceIsAttended = 0;
    int queries = 0;
};
AtlasOffsets atlasOffsets(const Atlas& atlas);

/// JSON (schema "saccade.atlas", version 1).
std::string atlasToJson(const Atlas& atlas, int indent = 2);

}  // namespace saccade
