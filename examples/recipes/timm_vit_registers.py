"""timm's VisionTransformer with 4 register tokens (Darcet et al. 2024) in Saccade's classifier contract.

    python examples/recipes/timm_vit_registers.py --out OUT --seed 1

timm.create_model("vit_small_patch14_reg4_dinov2", pretrained=False) made small (4 blocks, 3 heads,
width 192, 224x224 in 14x14 patches: a CLS token, 4 registers, then 16x16 = 256 patches), with a
10-class head, random weights under --seed (nothing is downloaded). timm's Attention never returns
its weights (and its fused path, F.scaled_dot_product_attention, never forms them), so the wrapper
runs timm's own blocks one by one and, beside each, recomputes that block's weights from the
block's own fields: softmax(q_norm(q) k_norm(k)^T * scale) with q, k from attn.qkv split over
attn.num_heads. The logits are timm's own. prefix_tokens = 5 (CLS plus 4 registers; the map is the
CLS row). init_values=1.0 starts DINOv2's LayerScale at 1 (no scaling): at its own start of 1e-5
every block's output is scaled to almost nothing, the CLS token (initialised at std 1e-6) hardly moves, and every image
gets the same near-uniform answer (probabilities 0.1 +- 1e-5), which no view can tell apart.

Fused attention is switched off (timm.layers.set_fused_attn(False)) before the model is built: the
scripted file would otherwise call aten::scaled_dot_product_attention, which LibTorch 1.13 (Debian
12's, which Saccade is built against) does not have. Pass --fused to keep it and see what
Saccade says about such a file.
Writes OUT/timm_vit_registers.pt, .png and .reference.json (_common.py).
"""

import sys
from typing import Dict, List

import timm
import torch
from torch import nn

import _common as rc

SIZE = 224


class TimmVitInContract(nn.Module):
    """Any timm VisionTransformer (or VisionTransformerDistilled) whose blocks use timm's Attention."""

    def __init__(self, vit: nn.Module):
        super().__init__()
        self.vit = vit

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        h = self.vit.norm_pre(self.vit.patch_drop(self.vit._pos_embed(self.vit.patch_embed(x))))
        maps: List[torch.Tensor] = []
        for block in self.vit.blocks:
            attn = block.attn
            y = block.norm1(h)
            n, t, c = y.shape
            qkv = attn.qkv(y).reshape(n, t, 3, attn.num_heads, attn.head_dim).permute(2, 0, 3, 1, 4)
            q, k = attn.q_norm(qkv[0]), attn.k_norm(qkv[1])
            maps.append(((q * attn.scale) @ k.transpose(-2, -1)).softmax(-1))  # [N, heads, T, T]
            h = block(h)                                                        # timm's own block
        return {"logits": self.vit.forward_head(self.vit.norm(h)), "attentions": torch.stack(maps, 1)}


def export(name: str, model_name: str, settings: Dict[str, object], **kwargs: object) -> None:
    a = rc.arguments(__doc__ if name == "timm_vit_registers" else sys.modules["__main__"].__doc__, name)
    vit = timm.create_model(model_name, pretrained=False, num_classes=10, **kwargs).eval()
    for head in (vit.head, getattr(vit, "head_dist", vit.head)):
        if bool((head.weight == 0).all()):
            rc.seeded_normal_(head)  # a zero head would give every class the same logit
    scripted = torch.jit.script(TimmVitInContract(vit).eval())
    rc.save(scripted, a.path + ".pt", dict(settings, input_size=[3, SIZE, SIZE], mean="imagenet"))
    rc.classifier_reference(a.path, SIZE, rc.IMAGENET_MEAN, rc.IMAGENET_STD, a.seed, vit)


def main() -> None:
    if "--fused" in sys.argv:
        sys.argv.remove("--fused")
    else:
        timm.layers.set_fused_attn(False)
    export("timm_vit_registers", "vit_small_patch14_reg4_dinov2", {"prefix_tokens": 5},
           img_size=SIZE, depth=4, num_heads=3, embed_dim=192, init_values=1.0)


if __name__ == "__main__":
    main()
