"""Exports glimpse_model.pt: the contract's `locations` form, from a traced module.

A locator looks at a 15x15 thumbnail of the 60x60 canvas and places 3 glimpses of 20x20 pixels
at once (centres in [-1, 1]); each glimpse is read with grid_sample, encoded, and the summed
codes are classified. It returns the centres, a fixed policy spread (`location_std`) and the
glimpse side as a fraction of the image (`glimpse_size`). torch.jit.trace keeps no attributes, so
the settings travel in the extra file saccade.json. It has no forward_sampled: Saccade's Runs tab
says so for this model.

Re-create the bundled file:
  /usr/bin/python3 samples/torchscript/glimpse_model.py --steps 1500 --seed 1
"""

import json
from typing import Dict

import torch
from torch import nn
import torch.nn.functional as F

import fashion_canvas

GLIMPSES, SIDE, GLIMPSE = 3, 60, 20


class GlimpseModel(nn.Module):
    def __init__(self, dim: int = 96):
        super().__init__()
        self.locator = nn.Sequential(nn.Flatten(), nn.Linear(15 * 15, 128), nn.ReLU(), nn.Linear(128, GLIMPSES * 2))
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
            nn.Linear(256, dim), nn.ReLU())
        self.where = nn.Linear(2, dim)
        self.out = nn.Linear(dim, len(fashion_canvas.CLASSES))

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        n = x.shape[0]
        loc = torch.tanh(self.locator(F.avg_pool2d(x, 4))).view(n, GLIMPSES, 2)
        scale = GLIMPSE / SIDE
        theta = x.new_zeros(n * GLIMPSES, 2, 3)  # on the input's device: traced code keeps devices
        theta[:, 0, 0] = scale
        theta[:, 1, 1] = scale
        theta[:, :, 2] = loc.reshape(-1, 2)
        grid = F.affine_grid(theta, [n * GLIMPSES, 1, GLIMPSE, GLIMPSE], align_corners=False)
        crops = F.grid_sample(x.repeat_interleave(GLIMPSES, 0), grid, align_corners=False)
        codes = (self.encoder(crops) + self.where(loc.reshape(-1, 2))).view(n, GLIMPSES, -1).sum(1)
        return {"logits": self.out(codes),
                "locations": loc,
                "location_std": torch.full_like(loc, 0.1),
                "glimpse_size": torch.full((n, GLIMPSES), scale, device=x.device)}


if __name__ == "__main__":
    args = fashion_canvas.arguments(__doc__.splitlines()[0], 1500, "samples/torchscript/glimpse_model.pt")
    model = GlimpseModel()
    accuracy = fashion_canvas.train(model, args.steps, SIDE, args.seed)
    traced = torch.jit.trace(model, torch.zeros(2, 1, SIDE, SIDE), strict=False)
    settings = {"class_names": fashion_canvas.CLASSES, "input_size": [1, SIDE, SIDE], "dataset": "translated-fashion60"}
    torch.jit.save(traced, args.out, _extra_files={"saccade.json": json.dumps(settings)})
    print(f"wrote {args.out}: 3 glimpses, test accuracy {accuracy:.3f} on 1,000 canvases")
