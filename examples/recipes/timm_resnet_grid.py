"""timm's ResNet-18 as the backbone of a grid attention head, in Saccade's grid contract (`attention`).

    python examples/recipes/timm_resnet_grid.py --out OUT --seed 1

timm.create_model("resnet18", pretrained=False, num_classes=0) turns a 128x128 RGB image into a
4x4 grid of 512-d features (forward_features). Two learned queries score the 16 cells (scaled dot
product, softmax): `forward` reads the expected cell per step (soft attention), `forward_sampled`
one cell drawn per step (hard attention, returned as `chosen`). The logits of step t come from the
mean of the cells read so far. The grid is also returned as `features`, so Saccade's Grad-CAM and
`cost` can use it. As in samples/torchscript/grid_attention.py the module is scripted and keeps
its settings as typed attributes (input size, ImageNet mean and std, class names); random weights
under --seed (nothing is downloaded). timm starts the last BatchNorm of every residual block at
zero (zero_init_last), so each block begins as the identity; that is left as timm makes it.
Writes OUT/timm_resnet_grid.pt, .png and .reference.json (_common.py).
"""

from typing import Dict, List

import timm
import torch
from torch import nn

import _common as rc

SIZE = 128
STEPS = 2


class ResNetGrid(nn.Module):
    class_names: List[str]
    input_size: List[int]
    mean: List[float]
    std: List[float]

    def __init__(self, classes: int = 10):
        super().__init__()
        self.class_names = [f"class {i}" for i in range(classes)]
        self.input_size = [3, SIZE, SIZE]
        self.mean = rc.IMAGENET_MEAN
        self.std = rc.IMAGENET_STD
        self.backbone = timm.create_model("resnet18", pretrained=False, num_classes=0)
        dim = self.backbone.num_features
        self.query = nn.Parameter(torch.randn(STEPS, dim) * dim ** -0.5)
        self.out = nn.Linear(dim, classes)
        self.scale = dim ** -0.5
        self.steps = STEPS

    def run(self, x: torch.Tensor, sample: bool) -> Dict[str, torch.Tensor]:
        f = self.backbone.forward_features(x)                        # [N, 512, 4, 4]
        n, d, h, w = f.shape
        keys = f.flatten(2).transpose(1, 2)                          # [N, 16, 512]
        a = torch.softmax(torch.einsum("nld,td->ntl", keys, self.query) * self.scale, -1)  # [N, steps, 16]
        out: Dict[str, torch.Tensor] = {"attention": a.view(n, self.steps, h, w), "features": f}
        if sample:
            cells = torch.multinomial(a.reshape(n * self.steps, h * w), 1).view(n, self.steps)
            read = keys.gather(1, cells.unsqueeze(2).expand(n, self.steps, d))
            out["chosen"] = cells
        else:
            read = a @ keys
        steps = torch.arange(1, self.steps + 1, device=x.device, dtype=x.dtype).view(1, self.steps, 1)
        out["logits"] = self.out(read.cumsum(1) / steps)              # [N, steps, classes]
        return out

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.run(x, False)

    @torch.jit.export
    def forward_sampled(self, x: torch.Tensor, seed: int) -> Dict[str, torch.Tensor]:
        torch.manual_seed(seed)
        return self.run(x, True)


def main() -> None:
    a = rc.arguments(__doc__, "timm_resnet_grid")
    model = ResNetGrid().eval()
    rc.save(torch.jit.script(model), a.path + ".pt", {})
    rc.classifier_reference(a.path, SIZE, rc.IMAGENET_MEAN, rc.IMAGENET_STD, a.seed,
                            lambda x: model(x)["logits"][:, -1])


if __name__ == "__main__":
    main()
