#pragma once
// Captions as token rows and back, and the grounding of caption words in scene objects: what the
// captioner's trainer, evaluation and traces share. Engine header: includes LibTorch.

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "common/box.h"
#include "data/sample.h"
#include "models/caption/caption_config.h"

namespace saccade {

/// <start> w1 .. wn <end> <pad>... of exactly maxLength ids; words not in `vocabulary` become
/// <unk>; a caption longer than maxLength - 2 words is cut (and keeps no <end>).
std::vector<std::int64_t> encodeCaption(const std::vector<std::string>& words,
                                        const std::vector<std::string>& vocabulary, int maxLength);
/// The words of `tokens` up to the first <end> (or <pad>), without <start>.
std::vector<std::string> decodeCaption(const std::vector<std::int64_t>& tokens,
                                       const std::vector<std::string>& vocabulary);
/// [B, maxLength] int64 token rows of the samples' captions, on `device`.
torch::Tensor captionTokens(const std::vector<Sample>& samples, const CaptionConfig& config,
                            const torch::Device& device);
/// A scene's valid captions: its references, or its one caption when it has none.
std::vector<std::vector<std::string>> sceneReferences(const Sample& sample);

/// Per word of a (possibly generated) caption, the object it names, or -1. A size, colour or
/// shape word belongs to its noun phrase "a SIZE COLOUR SHAPE": all three name the object with
/// exactly those attributes; when no object has all three, a word names the one object that
/// shares its attribute and most of the phrase's others (ties: none). Other words name none.
std::vector<int> groundCaptionWords(const std::vector<std::string>& words, const std::vector<LabeledBox>& objects);

/// Per word, the objects its attention is scored on: an object word's own object (groundCaptionWords);
/// a relation word's two objects, the nearest grounded words before and after it (none when
/// either is missing or both are one object); none for any other word.
std::vector<std::vector<int>> captionWordTargets(const std::vector<std::string>& words,
                                                 const std::vector<LabeledBox>& objects);

/// Per word, whether the cell its step chose (`cells[w]`, on a g x g grid over a size x size
/// image) hits one of its targets (captionWordTargets): 1 hit, 0 miss, -1 not scored (no
/// targets, or no cell).
std::vector<int> captionWordHits(const std::vector<std::string>& words, const std::vector<LabeledBox>& objects,
                                 const std::vector<int>& cells, int grid, int size);

/// Whether a chosen cell hits an object: the cell and the box share at least a quarter of the
/// smaller of the two areas (so a small object inside a big cell, or a cell inside a big object).
bool cellHitsBox(const Box& cell, const Box& object);

}  // namespace saccade
