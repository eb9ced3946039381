"""transformers' DeiTForImageClassificationWithTeacher (CLS and distillation token) in Saccade's classifier contract.

    python examples/recipes/hf_deit.py --out OUT --seed 1

A small config (4 layers, 3 heads, hidden 192, 224x224 in 16x16 patches), random weights under
--seed (nothing is downloaded). The tokens are the CLS token, the distillation token, then 196
patches: 198 is neither a square nor a square plus one, so the file declares prefix_tokens = 2
(the map is the CLS token's row, readout_token 0). The logits are DeiT's own inference answer, the
mean of the CLS and distillation heads. Attentions come from attn_implementation="eager" with
output_attentions=True; the wrapper is traced, so the settings (input size, ImageNet mean and std
as DeiTImageProcessor's) go into the extra file saccade.json.
Writes OUT/hf_deit.pt, OUT/hf_deit.png and OUT/hf_deit.reference.json (_common.py).
"""

from typing import Dict

import torch
from torch import nn
from transformers import DeiTConfig, DeiTForImageClassificationWithTeacher

import _common as rc

SIZE = 224


class InContract(nn.Module):
    def __init__(self, model: DeiTForImageClassificationWithTeacher):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        out = self.model(pixel_values=x, output_attentions=True, return_dict=True)
        return {"logits": out.logits, "attentions": torch.stack(out.attentions, 1)}  # [N, layers, heads, 198, 198]


def main() -> None:
    a = rc.arguments(__doc__, "hf_deit")
    config = DeiTConfig(image_size=SIZE, patch_size=16, num_hidden_layers=4, num_attention_heads=3, hidden_size=192,
                        intermediate_size=768, num_labels=10, attn_implementation="eager")
    model = DeiTForImageClassificationWithTeacher(config).eval()
    traced = torch.jit.trace(InContract(model).eval(), torch.rand(1, 3, SIZE, SIZE), strict=False, check_trace=False)
    rc.save(traced, a.path + ".pt", {"input_size": [3, SIZE, SIZE], "mean": "imagenet", "prefix_tokens": 2})
    rc.classifier_reference(a.path, SIZE, rc.IMAGENET_MEAN, rc.IMAGENET_STD, a.seed,
                            lambda x: model(pixel_values=x).logits)


if __name__ == "__main__":
    main()
