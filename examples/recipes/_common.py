"""What every recipe in examples/recipes/ shares: its arguments, saving with Saccade's settings, the
seeded reference image, and the reference file that scripts/check-ecosystem.sh compares
saccade-cli's answer with (examples/recipes/_compare.py).

Nothing here downloads anything: the recipes build their models from a config under a seed.

For a classifier NAME the recipe writes into --out:
  NAME.pt              the TorchScript file (settings in its extra file saccade.json)
  NAME.png             a seeded RGB image of the model's exact input size
  NAME.reference.json  PyTorch's class probabilities on NAME.png, computed by the saved file
                       (torch.jit.load) and checked against the library's own eager model, and
                       the gradient of the predicted class's logit with respect to the image in
                       [0, 1] (|gradient| summed over channels, per pixel: what
                       `saccade-cli attribute --method gradient --json --pixels` prints)
"""

import argparse
import json
import os
from typing import Callable, Dict, List

import torch
from torch import nn
from torchvision.io import write_png

IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]
TOLERANCE = 1e-4  # relative to the largest value compared


def arguments(doc: str, name: str) -> argparse.Namespace:
    """Parses --out and --seed, seeds torch and returns the arguments with .path = OUT/NAME (no suffix)."""
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("--out", default="recipes-out", help="folder to write into (created)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random weights and the image")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    a.path = os.path.join(a.out, name)
    return a


def seeded_normal_(linear: nn.Linear, std: float = 0.02) -> None:
    """Re-initialises a head under the global seed (a zero head gives equal logits for every class)."""
    with torch.no_grad():
        nn.init.normal_(linear.weight, std=std)
        if linear.bias is not None:
            nn.init.normal_(linear.bias, std=std)


def save(module: torch.jit.ScriptModule, path: str, settings: Dict[str, object]) -> None:
    """torch.jit.save with Saccade's settings as the extra file saccade.json (a traced module keeps no
    attributes; a scripted one could keep them as attributes too)."""
    torch.jit.save(module, path, _extra_files={"saccade.json": json.dumps(settings)})


def reference_image(size: int, seed: int) -> torch.Tensor:
    """A seeded RGB uint8 image [3, size, size]: smooth colour blobs and one bright disc."""
    g = torch.Generator().manual_seed(seed)
    low = torch.rand(1, 3, 6, 6, generator=g)
    img = nn.functional.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)[0]
    yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
    cy, cx = (0.3 + 0.4 * torch.rand(2, generator=g)) * size
    disc = torch.hypot(yy - cy, xx - cx) < size / 6
    img[:, disc] = torch.tensor([0.9, 0.8, 0.1]).view(3, 1)
    img = img + 0.05 * torch.rand(3, size, size, generator=g)  # no flat regions
    return (img.clamp(0, 1) * 255).round().to(torch.uint8)


def _relative(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / b.abs().max().clamp_min(1e-30))


def classifier_reference(path: str, size: int, mean: List[float], std: List[float], seed: int,
                         eager: Callable[[torch.Tensor], torch.Tensor]) -> None:
    """Writes PATH.png and PATH.reference.json: the probabilities of the file PATH.pt (loaded back as
    Saccade would load it) on the image, checked against `eager` (the library's own model) to 1e-4."""
    image = reference_image(size, seed)
    write_png(image, path + ".png")
    x = image.float().unsqueeze(0) / 255.0
    x = (x - torch.tensor(mean).view(1, -1, 1, 1)) / torch.tensor(std).view(1, -1, 1, 1)
    loaded = torch.jit.load(path + ".pt").eval()
    pixels = (image.float().unsqueeze(0) / 255.0).requires_grad_(True)
    mean_t, std_t = torch.tensor(mean).view(1, -1, 1, 1), torch.tensor(std).view(1, -1, 1, 1)
    logits = loaded((pixels - mean_t) / std_t)["logits"]
    if logits.dim() == 3:
        logits = logits[:, -1]
    label = int(logits[0].argmax())
    (gradient,) = torch.autograd.grad(logits[0, label], pixels)
    logits = logits.detach()
    with torch.no_grad():
        theirs = eager(x)
    difference = _relative(logits, theirs)
    if difference > TOLERANCE:
        raise SystemExit(f"{path}.pt: its logits differ from the eager model's by {difference:.2e} (relative)")
    if bool((logits == logits[:, :1]).all()):
        raise SystemExit(f"{path}.pt: every class has the same logit (a zero head?)")
    probs = torch.softmax(logits.double(), -1)[0]
    reference = {"kind": "classifier", "image": os.path.basename(path) + ".png", "size": size,
                 "probs": probs.tolist(), "label": label, "torch": torch.__version__,
                 "eager_relative_difference": difference, "gradient_pixels": gradient.abs().sum(1)[0].tolist()}
    with open(path + ".reference.json", "w", encoding="utf-8") as f:
        json.dump(reference, f)
    print(f"wrote {path}.pt, .png and .reference.json: class {reference['label']}, "
          f"p = {float(probs.max()):.4f}, file against eager {difference:.1e}")
