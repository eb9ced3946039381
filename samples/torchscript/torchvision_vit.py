"""Exports torchvision's own VisionTransformer in Saccade's attention contract.

torchvision's encoder blocks call their attention with need_weights=False, so the weights never
leave the block. The wrapper below runs the same blocks itself and asks each one's
nn.MultiheadAttention for its weights per head (need_weights=True, average_attn_weights=False).
The logits are the model's own: the wrapper changes nothing but what is returned.

With --registers R, R learned register tokens (Darcet et al. 2024) follow the CLS token; the
module then declares prefix_tokens = 1 + R, and Saccade reads the CLS row (readout_token 0).

Nothing can be downloaded here, so the weights are torchvision's random initialisation under
--seed; load a checkpoint of your own with --weights FILE (a state_dict of the same architecture).

Re-create the bundled file (a small ViT, 224x224, 16x16 patches, 4 layers of 3 heads):
  /usr/bin/python3 samples/torchscript/torchvision_vit.py --seed 1 --out samples/torchscript/torchvision_vit.pt
ViT-B/16 (86M parameters, 330 MB; not bundled):
  /usr/bin/python3 samples/torchscript/torchvision_vit.py --b16 --seed 1 --out /tmp/vit_b_16.pt
"""

import argparse
from typing import Dict, List

import torch
from torch import nn
from torchvision.models import vit_b_16
from torchvision.models.vision_transformer import VisionTransformer


class VitInContract(nn.Module):
    # Saccade's settings, kept by torch.jit.script as module attributes.
    resize: int
    center_crop: int
    mean: str
    prefix_tokens: int

    def __init__(self, vit: VisionTransformer, registers: int):
        super().__init__()
        self.vit = vit
        self.resize = 256                   # torchvision's ImageNet evaluation: Resize(256),
        self.center_crop = vit.image_size   # CenterCrop(224),
        self.mean = "imagenet"              # Normalize(ImageNet mean and std)
        self.prefix_tokens = 1 + registers  # the CLS token, then the registers
        self.registers = nn.Parameter(torch.randn(1, registers, vit.hidden_dim) * 0.02)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        h = self.vit._process_input(x)                                   # [N, patches, dim]
        n = h.shape[0]
        h = torch.cat([self.vit.class_token.expand(n, -1, -1), h], 1)
        h = self.vit.encoder.dropout(h + self.vit.encoder.pos_embedding)
        h = torch.cat([h[:, :1], self.registers.expand(n, -1, -1), h[:, 1:]], 1)
        maps: List[torch.Tensor] = []
        for block in self.vit.encoder.layers:                           # torchvision's EncoderBlock
            y = block.ln_1(h)
            y, weights = block.self_attention(y, y, y, need_weights=True, average_attn_weights=False)
            assert weights is not None                                   # TorchScript types it Optional[Tensor]
            h = h + block.dropout(y)
            h = h + block.mlp(block.ln_2(h))
            maps.append(weights)                                         # [N, heads, tokens, tokens]
        h = self.vit.encoder.ln(h)
        return {"logits": self.vit.heads(h[:, 0]), "attentions": torch.stack(maps, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--b16", action="store_true", help="torchvision's vit_b_16 instead of the small ViT")
    p.add_argument("--registers", type=int, default=0)
    p.add_argument("--weights", help="a state_dict for the torchvision model")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    if a.b16:
        vit = vit_b_16()
    else:
        vit = VisionTransformer(image_size=224, patch_size=16, num_layers=4, num_heads=3, hidden_dim=192,
                                mlp_dim=768, num_classes=10)
    if a.weights:
        vit.load_state_dict(torch.load(a.weights, map_location="cpu"))
    else:  # torchvision starts its head at zero: every class would get 1/K
        nn.init.normal_(vit.heads.head.weight, std=0.02)
    model = torch.jit.script(VitInContract(vit, a.registers).eval())
    torch.jit.save(model, a.out)


if __name__ == "__main__":
    main()
