"""Exports grid_attention.pt: the contract's `attention` form (docs/model-contract.md).

A small CNN turns a 60x60 canvas into a 6x6 grid of 64-d features; for 3 steps a GRU's state
scores the cells (scaled dot product), attends, and updates itself with what it read; each step
emits class logits. forward is soft attention (the weighted mean of the cells); forward_sampled
is hard attention: at each step it reads one cell drawn from the same distribution, and returns
the cells it drew as `chosen`. Trained with soft attention only, as Xu et al. do before sampling
at test time. The module keeps its settings as attributes (torch.jit.script keeps them).

Re-create the bundled file:
  /usr/bin/python3 samples/torchscript/grid_attention.py --steps 1500 --seed 1
"""

from typing import Dict, List

import torch
from torch import nn

import fashion_canvas


class GridAttention(nn.Module):
    class_names: List[str]
    input_size: List[int]
    dataset: str

    def __init__(self, steps: int = 3, dim: int = 64):
        super().__init__()
        self.class_names = fashion_canvas.CLASSES
        self.input_size = [1, 60, 60]
        self.dataset = "translated-fashion60"
        self.steps = steps
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, dim, 3, padding=1), nn.ReLU(), nn.MaxPool2d(5))
        self.query = nn.Linear(dim, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, len(self.class_names))
        self.scale = dim ** -0.5

    def run(self, x: torch.Tensor, sample: bool) -> Dict[str, torch.Tensor]:
        f = self.encoder(x)                              # [N, D, 6, 6]
        n, d, h, w = f.shape
        keys = f.flatten(2).transpose(1, 2)             # [N, 36, D]
        state = keys.mean(1)
        maps: List[torch.Tensor] = []
        logits: List[torch.Tensor] = []
        chosen: List[torch.Tensor] = []
        for _ in range(self.steps):
            scores = (keys @ self.query(state).unsqueeze(2)).squeeze(2) * self.scale
            a = torch.softmax(scores, -1)               # [N, 36]
            if sample:
                cell = torch.multinomial(a, 1)          # [N, 1]
                read = keys.gather(1, cell.unsqueeze(2).expand(n, 1, d)).squeeze(1)
                chosen.append(cell.squeeze(1))
            else:
                read = (a.unsqueeze(2) * keys).sum(1)
            state = self.cell(read, state)
            maps.append(a.view(n, h, w))
            logits.append(self.out(state))
        result = {"logits": torch.stack(logits, 1), "attention": torch.stack(maps, 1)}
        if sample:
            result["chosen"] = torch.stack(chosen, 1)
        return result

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.run(x, False)

    @torch.jit.export
    def forward_sampled(self, x: torch.Tensor, seed: int) -> Dict[str, torch.Tensor]:
        torch.manual_seed(seed)
        return self.run(x, True)


if __name__ == "__main__":
    args = fashion_canvas.arguments(__doc__.splitlines()[0], 1500, "samples/torchscript/grid_attention.pt")
    model = GridAttention()
    accuracy = fashion_canvas.train(model, args.steps, 60, args.seed)
    torch.jit.save(torch.jit.script(model), args.out)
    print(f"wrote {args.out}: soft attention, test accuracy {accuracy:.3f} on 1,000 canvases")
