"""Captum as a peer: saliency, input x gradient, integrated gradients and occlusion of one image,
by Captum on a TorchScript file and by `saccade-cli attribute --json --pixels` on the same file.

    python scripts/captum_peer.py [--model samples/torchscript/grid_attention.pt] [--cli saccade-cli]

Needs torch, torchvision and captum (scripts/check-ecosystem.sh's environment plus `pip install
captum`). The image is a seeded grey PNG of the model's exact input size (written to --work), so
neither side resizes. Both sides attribute Saccade's predicted class of the model's last step
(the image in [0, 1], the file's own mean and std if it declares them):

  gradient              Captum Saliency (|gradient|)
  gradient-x-input      Captum InputXGradient
  integrated-gradients  Captum IntegratedGradients, black baseline, Gauss-Legendre, 64 points
                        (saccade-cli --steps 64), one point per forward (internal_batch_size=1)
  occlusion             Captum Occlusion of the softmax probability: each of saccade-cli's cells
                        (its answer's grid) filled with 0 alone, no overlap

Each map is |attribution| summed over channels, per pixel, and must equal saccade-cli's to 1e-4
of its largest value. Prints one line per method; exit 0 only if all agree.
"""

import argparse
import json
import os
import subprocess
import sys

import torch
from captum.attr import InputXGradient, IntegratedGradients, Occlusion, Saliency
from torchvision.io import ImageReadMode, read_image, write_png

IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
TOLERANCE = 1e-4


def normalisation(model: torch.jit.ScriptModule, channels: int):
    def setting(name: str):
        return getattr(model, name) if hasattr(model, name) else None
    mean, std = setting("mean"), setting("std")
    if mean == "imagenet":
        mean, std = IMAGENET
    if mean is None:
        return None
    mean = torch.tensor(mean, dtype=torch.float32).view(1, -1, 1, 1).expand(1, channels, 1, 1)
    std = torch.tensor(std if std is not None else [1.0], dtype=torch.float32).view(1, -1, 1, 1)
    return mean, std


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=os.path.join(here, "..", "samples", "torchscript", "grid_attention.pt"))
    p.add_argument("--cli", default=os.environ.get("SACCADE_CLI", os.path.join(here, "..", "build", "app", "cli",
                                                                                "saccade-cli")))
    p.add_argument("--work", default="captum-peer", help="folder for the image and saccade-cli's answers")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(1)
    os.makedirs(a.work, exist_ok=True)
    model = torch.jit.load(a.model).eval()
    channels, size = int(model.input_size[0]), int(model.input_size[-1])
    g = torch.Generator().manual_seed(a.seed)
    low = torch.rand(1, channels, 6, 6, generator=g)
    image = torch.nn.functional.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)[0]
    image = ((image + 0.1 * torch.rand(channels, size, size, generator=g)).clamp(0, 1) * 255).round().to(torch.uint8)
    png = os.path.join(a.work, "image.png")
    write_png(image, png)
    x = read_image(png, ImageReadMode.GRAY if channels == 1 else ImageReadMode.RGB).float().unsqueeze(0) / 255.0
    norm = normalisation(model, channels)

    def logits(images: torch.Tensor) -> torch.Tensor:
        z = (images - norm[0]) / norm[1] if norm is not None else images
        out = model(z)["logits"]
        return out[:, -1] if out.dim() == 3 else out

    def probabilities(images: torch.Tensor) -> torch.Tensor:
        return torch.softmax(logits(images), -1)

    failures = 0
    for method in ("gradient", "gradient-x-input", "integrated-gradients", "occlusion"):
        command = [a.cli, "--threads", "1", "attribute", "--model", a.model, "--image", png, "--resize", str(size),
                   "--center-crop", str(size), "--method", method, "--json", "--pixels"]
        if method == "integrated-gradients":
            command += ["--steps", "64"]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{method:22s} FAILS: saccade-cli: {(run.stderr.strip().splitlines() or ['no message'])[-1]}")
            failures += 1
            continue
        ours = json.loads(run.stdout)
        with open(os.path.join(a.work, method + ".json"), "w", encoding="utf-8") as f:
            f.write(run.stdout)
        target = int(ours["target"])
        if method == "gradient":
            theirs = Saliency(logits).attribute(x.clone(), target=target, abs=True)
        elif method == "gradient-x-input":
            theirs = InputXGradient(logits).attribute(x.clone(), target=target)
        elif method == "integrated-gradients":
            theirs = IntegratedGradients(logits).attribute(x.clone(), baselines=torch.zeros_like(x), target=target,
                                                           n_steps=64, method="gausslegendre", internal_batch_size=1)
        else:
            rows, cols = ours["grid"]["rows"], ours["grid"]["cols"]
            if size % rows or size % cols:
                print(f"{method:22s} FAILS: saccade-cli's {rows}x{cols} cells do not tile {size} pixels evenly")
                failures += 1
                continue
            window = (channels, size // rows, size // cols)
            with torch.no_grad():
                theirs = Occlusion(probabilities).attribute(x.clone(), sliding_window_shapes=window, strides=window,
                                                            baselines=0.0, target=target)
        theirs = theirs.detach().abs().sum(1)[0]
        mine = torch.tensor(ours["pixels"], dtype=torch.float64)
        scale = float(theirs.abs().max())
        if mine.shape != theirs.shape or scale == 0:
            print(f"{method:22s} FAILS: shape {tuple(mine.shape)} against Captum's {tuple(theirs.shape)}, or all zero")
            failures += 1
            continue
        worst = float((mine - theirs.double()).abs().max()) / scale
        verdict = "ok" if worst <= TOLERANCE else "FAILS"
        failures += verdict != "ok"
        print(f"{method:22s} {verdict}: class {target}, largest difference {worst:.1e} of Captum's peak")
    print(f"{4 - failures} of 4 agree with Captum (torch {torch.__version__}; {os.path.basename(a.model)})")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
