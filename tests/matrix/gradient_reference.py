"""Plain PyTorch on the same TorchScript file: the gradient or integrated-gradients map of one image.

  /usr/bin/python3 tests/matrix/gradient_reference.py --model M.pt --image X.png --target K
      --method gradient|integrated-gradients [--steps 64] [--mean imagenet]

X.png is already of the model's input size (Saccade is run with --resize S --center-crop S, so
neither side resizes). Pixels are bytes / 255; the model sees (x - mean) / std. The map is what
Saccade's attribute --json --pixels prints: |attribution| summed over channels, per pixel; integrated
gradients from a black baseline with Gauss-Legendre's rule over --steps points (Saccade's default),
one forward and backward per point.
Prints JSON: {"pixels": [[...]], "f_input": logit, "attribution_sum": ...}.
"""

import argparse
import json

import numpy as np
import torch
from torchvision.io import ImageReadMode, read_image

IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--target", type=int, required=True)
    p.add_argument("--method", required=True, choices=["gradient", "integrated-gradients"])
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--mean", default="")
    a = p.parse_args()
    torch.set_num_threads(1)
    m = torch.jit.load(a.model).eval()
    x = read_image(a.image, ImageReadMode.RGB).float().unsqueeze(0) / 255.0
    mean = std = None
    if a.mean == "imagenet":
        mean = torch.tensor(IMAGENET[0]).view(1, 3, 1, 1)
        std = torch.tensor(IMAGENET[1]).view(1, 3, 1, 1)

    def logit(images: torch.Tensor) -> torch.Tensor:
        z = (images - mean) / std if mean is not None else images
        out = m(z)["logits"]
        if out.dim() == 3:
            out = out[:, -1]
        return out[:, a.target]

    if a.method == "gradient":
        xi = x.clone().requires_grad_(True)
        f = logit(xi)
        (g,) = torch.autograd.grad(f.sum(), xi)
        attribution = g
        total = float("nan")
    else:
        nodes, weights = np.polynomial.legendre.leggauss(a.steps)
        alphas = torch.tensor((nodes + 1) / 2, dtype=torch.float32)
        w = torch.tensor(weights / 2, dtype=torch.float32)
        # The textbook loop: one forward and backward per point of the path. (PyTorch's own batched
        # form differs from it by 1.2e-3 of the map's peak on the CNN grid model: its convolutions
        # round differently at another batch size, and near-ties in the max-pools follow.)
        attribution = torch.zeros_like(x)
        for alpha, weight in zip(alphas, w):
            point = (alpha * x).requires_grad_(True)
            (g,) = torch.autograd.grad(logit(point).sum(), point)
            attribution += weight * g
        attribution = x * attribution
        total = float(attribution.sum())
        f = logit(x)
    pixels = attribution.abs().sum(1)[0]
    print(json.dumps({"pixels": pixels.tolist(), "f_input": float(f.detach()[0]), "attribution_sum": total}))


if __name__ == "__main__":
    main()
