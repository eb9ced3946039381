"""timm's DeiT with its distillation token (deit_tiny_distilled_patch16_224) in Saccade's classifier contract.

    python examples/recipes/timm_deit.py --out OUT --seed 1

timm.create_model("deit_tiny_distilled_patch16_224", pretrained=False, depth=4, num_classes=10):
3 heads, width 192, 224x224 in 16x16 patches after a CLS and a distillation token (198 tokens,
prefix_tokens = 2), random weights under --seed (nothing is downloaded). The logits are timm's
inference answer, the mean of the CLS and distillation heads. The weights are recomputed beside
each of timm's blocks by timm_vit_registers.py's wrapper (TimmVitInContract), with fused attention
switched off for the same reason (LibTorch 1.13 has no aten::scaled_dot_product_attention).
Writes OUT/timm_deit.pt, .png and .reference.json (_common.py).
"""

import timm

import timm_vit_registers


def main() -> None:
    timm.layers.set_fused_attn(False)
    timm_vit_registers.export("timm_deit", "deit_tiny_distilled_patch16_224", {"prefix_tokens": 2}, depth=4)


if __name__ == "__main__":
    main()
