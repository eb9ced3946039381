"""transformers' ViTForImageClassification in Saccade's classifier contract, with every layer's attention.

    python examples/recipes/hf_vit.py --out OUT --seed 1

A small config (4 layers, 3 heads, hidden 192, 224x224 in 16x16 patches: 196 patches after the
CLS token), random weights under --seed (nothing is downloaded). The model is asked for its
attentions (attn_implementation="eager", output_attentions=True: the SDPA path returns none) and
traced with a wrapper that returns the contract's dict. A traced module keeps no attributes, so the
settings (input size, ViTImageProcessor's mean and std of 0.5) go into the extra file saccade.json.
Writes OUT/hf_vit.pt, OUT/hf_vit.png and OUT/hf_vit.reference.json (_common.py).
"""

from typing import Dict

import torch
from torch import nn
from transformers import ViTConfig, ViTForImageClassification

import _common as rc

SIZE = 224


class InContract(nn.Module):
    def __init__(self, model: ViTForImageClassification):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        out = self.model(pixel_values=x, output_attentions=True, return_dict=True)
        return {"logits": out.logits, "attentions": torch.stack(out.attentions, 1)}  # [N, layers, heads, T, T]


def main() -> None:
    a = rc.arguments(__doc__, "hf_vit")
    config = ViTConfig(image_size=SIZE, patch_size=16, num_hidden_layers=4, num_attention_heads=3, hidden_size=192,
                       intermediate_size=768, num_labels=10, attn_implementation="eager")
    model = ViTForImageClassification(config).eval()
    wrapped = InContract(model).eval()
    example = torch.rand(1, 3, SIZE, SIZE)
    traced = torch.jit.trace(wrapped, example, strict=False, check_trace=False)
    mean = std = [0.5, 0.5, 0.5]
    rc.save(traced, a.path + ".pt", {"input_size": [3, SIZE, SIZE], "mean": mean, "std": std, "prefix_tokens": 1})
    rc.classifier_reference(a.path, SIZE, mean, std, a.seed, lambda x: model(pixel_values=x).logits)


if __name__ == "__main__":
    main()
