"""Writes the view matrix's own imports and the photo folder they are measured on.

Run with Debian's python3-torch and python3-torchvision (the test suite calls /usr/bin/python3):
  /usr/bin/python3 tests/matrix/export_imports.py --out DIR

DIR/cnn_grid.pt   a CNN-backbone grid model in the contract's `attention` form: torchvision's
                  ResNet-18 up to layer3 turns a 64x64 RGB crop into a 4x4 grid of 256-d features;
                  a two-step attention head reads the expected cell in `forward` (soft) and one
                  drawn cell per step in `forward_sampled` (hard, with `chosen`), and returns the
                  grid as `features` (Grad-CAM).
                  Preprocessing declared as torchvision's: resize 72, center_crop 64, ImageNet.
DIR/vit_registers.pt  torchvision's VisionTransformer in samples/torchscript/torchvision_vit.py's
                  wrapper, 64x64 in 16x16 patches, 2 layers of 2 heads, with 2 register tokens
                  (prefix_tokens 3), resize 72, center_crop 64, ImageNet normalisation.
DIR/photos/CLASS/*.png  12 RGB photographs of any size (96x80 and 80x112), 4 per class, for both;
                  the classes are named as cnn_grid's class_names, and by index for the ViT
                  (DIR/photos-by-index).
DIR/square64.png  a photograph of the models' exact input size (the check against plain PyTorch
                  feeds it unresized).
Random weights under --seed; the heads are not zero, so no output is uniform.
"""

import argparse
import os
import sys
from typing import Dict, List

import torch
from torch import nn
import torchvision
from torchvision.io import write_png
from torchvision.models.vision_transformer import VisionTransformer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "torchscript"))
from torchvision_vit import VitInContract  # noqa: E402  (the bundled export's wrapper, registers and all)

CLASSES = ["disc", "bar", "ring"]


class CnnGrid(nn.Module):
    class_names: List[str]
    resize: int
    center_crop: int
    mean: str

    def __init__(self):
        super().__init__()
        self.class_names = CLASSES
        self.resize = 72
        self.center_crop = 64
        self.mean = "imagenet"
        r = torchvision.models.resnet18(num_classes=len(CLASSES))
        self.backbone = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2, r.layer3)
        self.query = nn.Parameter(torch.randn(2, 256) * 0.05)
        self.out = nn.Linear(256, len(CLASSES))

    def run(self, x: torch.Tensor, sample: bool) -> Dict[str, torch.Tensor]:
        f = self.backbone(x)                                  # [N, 256, 4, 4]
        n, d, h, w = f.shape
        keys = f.flatten(2).transpose(1, 2)                   # [N, 16, 256]
        a = torch.softmax(torch.einsum("nld,td->ntl", keys, self.query), -1)  # [N, 2, 16]
        out: Dict[str, torch.Tensor] = {"attention": a.view(n, 2, h, w), "features": f}
        if sample:                                            # hard: one cell drawn per step
            cells = torch.multinomial(a.reshape(n * 2, h * w), 1).view(n, 2)
            read = keys.gather(1, cells.unsqueeze(2).expand(n, 2, d))  # [N, 2, 256]
            out["chosen"] = cells
        else:                                                 # soft: the expected read
            read = a @ keys
        state = read.cumsum(1) / torch.arange(1, 3, device=x.device).view(1, 2, 1)
        out["logits"] = self.out(state)
        return out

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.run(x, False)

    @torch.jit.export
    def forward_sampled(self, x: torch.Tensor, seed: int) -> Dict[str, torch.Tensor]:
        torch.manual_seed(seed)
        return self.run(x, True)


def photo(label: int, k: int, g: torch.Generator) -> torch.Tensor:
    """An RGB uint8 photograph [3, H, W]: a textured background and one object of the class."""
    h, w = (96, 80) if k % 2 == 0 else (80, 112)
    img = torch.rand(3, h, w, generator=g) * 0.3 + torch.tensor([0.2, 0.3, 0.4]).view(3, 1, 1)
    yy, xx = torch.meshgrid(torch.arange(h).float(), torch.arange(w).float(), indexing="ij")
    cy = h * (0.3 + 0.4 * torch.rand(1, generator=g).item())
    cx = w * (0.3 + 0.4 * torch.rand(1, generator=g).item())
    r = torch.hypot(yy - cy, xx - cx)
    mask = [r < 14, (yy - cy).abs() < 5, (r < 16) & (r > 9)][label]
    # The object's colour with a little texture of its own: no flat regions, whose max-pool ties
    # any two implementations may break differently.
    img[:, mask] = torch.tensor([0.8, 0.2 + 0.2 * label, 0.1]).view(3, 1) + 0.15 * torch.rand(3, int(mask.sum()), generator=g)
    return (img.clamp(0, 1) * 255).to(torch.uint8)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    torch.jit.save(torch.jit.script(CnnGrid().eval()), os.path.join(a.out, "cnn_grid.pt"))
    vit = VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=2, hidden_dim=48, mlp_dim=96,
                            num_classes=len(CLASSES))
    nn.init.normal_(vit.heads.head.weight, std=0.02)  # torchvision starts its head at zero
    wrapped = VitInContract(vit, registers=2)
    wrapped.resize = 72  # torchvision's evaluation transform at this size: Resize(72), CenterCrop(64)
    torch.jit.save(torch.jit.script(wrapped.eval()), os.path.join(a.out, "vit_registers.pt"))
    g = torch.Generator().manual_seed(a.seed)
    for label, name in enumerate(CLASSES):
        for folder, cls in (("photos", name), ("photos-by-index", str(label))):
            os.makedirs(os.path.join(a.out, folder, cls), exist_ok=True)
        for k in range(4):
            img = photo(label, k, g)
            for folder, cls in (("photos", name), ("photos-by-index", str(label))):
                write_png(img, os.path.join(a.out, folder, cls, f"{k}.png"))
    # An image of the models' exact input size, for the check against plain PyTorch (no resizing).
    write_png(photo(1, 0, g)[:, 16:80, 8:72].contiguous(), os.path.join(a.out, "square64.png"))


if __name__ == "__main__":
    main()
