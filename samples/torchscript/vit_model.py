"""Exports vit_model.pt: the contract's `attentions` form, a small Vision Transformer.

10x10 patches of the 60x60 canvas (a 6x6 grid) plus a CLS token, 3 pre-norm layers of 4 heads,
width 64. Each layer's attention weights are returned as `attentions` [N, layers, heads, 37, 37];
Saccade infers the grid and the CLS token from the 37 tokens. The input is normalised by the
module's `mean` and `std` attributes, which Saccade applies before calling forward.

Re-create the bundled file:
  /usr/bin/python3 samples/torchscript/vit_model.py --steps 1500 --seed 1
"""

from typing import Dict, List, Tuple

import torch
from torch import nn

import fashion_canvas


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        n, t, d = x.shape
        qkv = self.qkv(self.norm1(x)).view(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = torch.softmax(q @ k.transpose(-2, -1) * float(d // self.heads) ** -0.5, -1)   # [N, H, T, T]
        x = x + self.proj((a @ v).transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.norm2(x)), a


class VitModel(nn.Module):
    class_names: List[str]
    input_size: int
    mean: List[float]
    std: List[float]
    dataset: str

    def __init__(self, dim: int = 64, layers: int = 3, heads: int = 4, patch: int = 10, side: int = 60):
        super().__init__()
        self.class_names = fashion_canvas.CLASSES
        self.input_size = side
        self.mean = [0.1]
        self.std = [0.25]
        self.dataset = "translated-fashion60"
        tokens = (side // patch) ** 2 + 1
        self.embed = nn.Conv2d(1, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.position = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, len(self.class_names))

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        p = self.embed(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.position
        maps: List[torch.Tensor] = []
        for block in self.blocks:
            h, a = block(h)
            maps.append(a)
        return {"logits": self.out(self.norm(h[:, 0])), "attentions": torch.stack(maps, 1)}


if __name__ == "__main__":
    args = fashion_canvas.arguments(__doc__.splitlines()[0], 1500, "samples/torchscript/vit_model.pt")
    model = VitModel()
    # Training sees normalised inputs, as Saccade will give them.
    normalised = lambda x: model((x - 0.1) / 0.25)  # noqa: E731
    accuracy = fashion_canvas.train(model, args.steps, 60, args.seed, forward=normalised)
    torch.jit.save(torch.jit.script(model), args.out)
    print(f"wrote {args.out}: ViT, test accuracy {accuracy:.3f} on 1,000 canvases")
