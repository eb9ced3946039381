"""Writes sdpa_import.pt: a tiny classifier in Saccade's attention contract whose scripted code calls
torch.nn.functional.scaled_dot_product_attention, an operator PyTorch 2.0 added. LibTorch 1.13 cannot
load the file; a test checks that Saccade says so in one line naming the operator and both versions.

Re-create (needs PyTorch 2.x, for example the venv of scripts/check-ecosystem.sh):
  ~/.cache/saccade-ecosystem/venv/bin/python tests/data/torch2/make_sdpa_import.py --seed 1 \
      --out tests/data/torch2/sdpa_import.pt
"""

import argparse
from typing import Dict

import torch
import torch.nn.functional as F
from torch import nn


class SdpaClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cells = nn.Conv2d(1, 8, kernel_size=7, stride=7)  # 28x28 -> a 4x4 grid of cells
        self.query = nn.Parameter(torch.randn(1, 1, 8) * 0.1)
        self.head = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        cells = self.cells(x).flatten(2).transpose(1, 2)                       # [N, 16, 8]
        q = self.query.expand(x.shape[0], 1, 8)
        context = F.scaled_dot_product_attention(q, cells, cells)              # [N, 1, 8]
        weights = torch.softmax(q @ cells.transpose(1, 2) / 8 ** 0.5, -1)      # [N, 1, 16]
        return {"logits": self.head(context[:, 0]), "attention": weights.view(-1, 1, 4, 4)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.jit.save(torch.jit.script(SdpaClassifier().eval()), a.out)


if __name__ == "__main__":
    main()
