"""Captum as a peer: saliency, input x gradient, integrated gradients, SmoothGrad, occlusion and
Grad-CAM of one image, by Captum on a TorchScript file and by `saccade-cli attribute --json
--pixels` on the same file, with the time each side took on one thread.

    python scripts/captum_peer.py [--model samples/torchscript/grid_attention.pt
                                   --model samples/torchscript/vit_model.pt] [--cli saccade-cli]

Needs torch, torchvision and captum (scripts/check-ecosystem.sh's environment plus `pip install
captum`). Without --model it runs both bundled files above. The image is a seeded grey PNG of the
model's exact input size (written to --work), so neither side resizes. Both sides attribute
Saccade's predicted class of the model's last step (the image in [0, 1], the file's own mean and
std if it declares them):

  gradient              Captum Saliency (|gradient|)
  gradient-x-input      Captum InputXGradient
  integrated-gradients  Captum IntegratedGradients, black baseline, Gauss-Legendre, 64 points
                        (saccade-cli --steps 64), all 64 points in one batch (Captum's default)
  smoothgrad            Captum NoiseTunnel(Saliency(abs=False)), nt_type="smoothgrad", 64 copies,
                        sigma 0.15 in pixel units (saccade-cli --samples 64 --sigma 0.15 --seed S).
                        Same draws: Saccade draws its [64, C, H, W] noise with torch::randn from a
                        CPU generator seeded with S (core/common/rng.cpp), and NoiseTunnel draws
                        torch.normal(0, sigma) of the same shape from the global CPU generator, so
                        torch.manual_seed(S) just before the call gives Captum the same noisy
                        copies (the same Mersenne twister and normal kernel in LibTorch and torch).
                        The map is then deterministic and held to 1e-4 like the others; were the
                        draws to differ, that check would fail, not pass by chance.
  occlusion             Captum Occlusion of the softmax probability: each of saccade-cli's cells
                        (its answer's grid) filled with 0 alone, no overlap
  gradcam               Captum LayerGradCam on the layer whose output is the `features` grid
                        (docs/model-contract.md): the Python model of the file, its weights loaded
                        from the file's state_dict (hooks do not work on a ScriptModule). The
                        bundled grid_attention.pt returns no `features`, so the script scripts the
                        same weights with forward also returning the encoder's grid (to --work) and
                        gives saccade-cli that file. saccade-cli writes Grad-CAM after its ReLU,
                        each grid cell spread over its pixels, so Captum's grid map (before the ReLU)
                        is clamped at 0 and compared cell by cell. A file saccade-cli refuses
                        Grad-CAM for (no `features`, as vit_model.pt) gets a "not offered" line
                        with its reason, not a failure.

Each map is |attribution| summed over channels, per pixel (Grad-CAM: per cell), and must equal
saccade-cli's to 1e-4 of its largest value. Time, both sides warm and on one thread: saccade-cli's
`bench attribute --method M` (the median of 5 calls after a warm-up, the same options: 64
Gauss-Legendre points, 64 SmoothGrad copies) and Captum's attribute call (time.perf_counter, the
median of 5 calls after a warm-up, torch.set_num_threads(1)); the line gives Captum / Saccade, so
above 1 means Saccade is faster. Prints one line per method and file; exit 0 only if all agree.
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
from typing import Dict, List

import torch
from captum.attr import (InputXGradient, IntegratedGradients, LayerGradCam, NoiseTunnel, Occlusion,
                         Saliency)
from torchvision.io import ImageReadMode, read_image, write_png

IMAGENET = ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
TOLERANCE = 1e-4
METHODS = ("gradient", "gradient-x-input", "integrated-gradients", "smoothgrad", "occlusion", "gradcam")
SAMPLES, SIGMA = 64, 0.15
HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES_DIR = os.path.join(HERE, "..", "samples", "torchscript")


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


REPEATS = 5


def timed(attribute):
    """attribute() once to warm up, then REPEATS times: (its answer, the median's seconds, the
    warm-up's seconds), as `saccade-cli bench attribute` times its side."""
    start = time.perf_counter()
    attribute()
    first = time.perf_counter() - start
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        answer = attribute()
        times.append(time.perf_counter() - start)
    return answer, sorted(times)[len(times) // 2], first


def saccade_warm_ms(cli: str, file: str, image: list, method: str):
    """saccade-cli bench attribute's median of REPEATS warm calls of the same map, in ms (None if it fails)."""
    command = [cli, "--threads", "1", "bench", "attribute", "--model", file] + image + [
        "--method", method, "--repeats", str(REPEATS), "--json"]
    if method == "integrated-gradients":
        command += ["--steps", "64", "--quadrature", "gauss-legendre"]
    if method == "smoothgrad":
        command += ["--samples", str(SAMPLES)]
    run = subprocess.run(command, capture_output=True, text=True)
    return json.loads(run.stdout)["ms"] if run.returncode == 0 else None


def python_model(path: str, script: torch.jit.ScriptModule):
    """The nn.Module of a bundled file (samples/torchscript/NAME.py), the file's weights loaded, and
    the layer whose output is its feature grid; None when there is no such Python model."""
    name = os.path.splitext(os.path.basename(path))[0]
    if name != "grid_attention":
        return None
    sys.path.insert(0, SAMPLES_DIR)
    base = importlib.import_module(name).GridAttention

    class WithFeatures(base):
        """GridAttention whose forward also returns the encoder's grid as `features`."""

        def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
            f = self.encoder(x)
            n, d, h, w = f.shape
            keys = f.flatten(2).transpose(1, 2)
            state = keys.mean(1)
            logits: List[torch.Tensor] = []
            maps: List[torch.Tensor] = []
            for _ in range(self.steps):
                a = torch.softmax((keys @ self.query(state).unsqueeze(2)).squeeze(2) * self.scale, -1)
                state = self.cell((a.unsqueeze(2) * keys).sum(1), state)
                maps.append(a.view(n, h, w))
                logits.append(self.out(state))
            return {"logits": torch.stack(logits, 1), "attention": torch.stack(maps, 1), "features": f}

    module = WithFeatures(steps=int(script.steps)).eval()
    module.load_state_dict(script.state_dict())
    return module, module.encoder


def compare(a, path: str, failures: List[str], lines: List[str]) -> None:
    model = torch.jit.load(path).eval()
    name = os.path.basename(path)
    work = os.path.join(a.work, os.path.splitext(name)[0])
    os.makedirs(work, exist_ok=True)
    size_setting = model.input_size
    channels = int(size_setting[0]) if isinstance(size_setting, list) and len(size_setting) == 3 else 1
    size = int(size_setting[-1]) if isinstance(size_setting, list) else int(size_setting)
    g = torch.Generator().manual_seed(a.seed)
    low = torch.rand(1, channels, 6, 6, generator=g)
    image = torch.nn.functional.interpolate(low, size=(size, size), mode="bilinear", align_corners=False)[0]
    image = ((image + 0.1 * torch.rand(channels, size, size, generator=g)).clamp(0, 1) * 255).round().to(torch.uint8)
    png = os.path.join(work, "image.png")
    write_png(image, png)
    x = read_image(png, ImageReadMode.GRAY if channels == 1 else ImageReadMode.RGB).float().unsqueeze(0) / 255.0
    norm = normalisation(model, channels)

    def through(net):
        def logits(images: torch.Tensor) -> torch.Tensor:
            z = (images - norm[0]) / norm[1] if norm is not None else images
            out = net(z)["logits"]
            return out[:, -1] if out.dim() == 3 else out
        return logits

    logits = through(model)

    def probabilities(images: torch.Tensor) -> torch.Tensor:
        return torch.softmax(logits(images), -1)

    for method in METHODS:
        label = f"{name:18s} {method:21s}"
        file = path
        layer_model = None
        if method == "gradcam":
            built = python_model(path, model)
            if built is not None:
                layer_model = built
                file = os.path.join(work, "with_features.pt")
                torch.jit.save(torch.jit.script(built[0]), file)
        command = [a.cli, "--threads", "1", "attribute", "--model", file, "--image", png, "--resize", str(size),
                   "--center-crop", str(size), "--method", method, "--json", "--pixels"]
        if method == "integrated-gradients":
            command += ["--steps", "64"]
        if method == "smoothgrad":
            command += ["--samples", str(SAMPLES), "--sigma", str(SIGMA), "--seed", str(a.seed)]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            why = (run.stderr.strip().splitlines() or ["no message"])[-1]
            if method == "gradcam" and "no convolutional grid" in why:
                lines.append(f"{label} not offered: {why.split(': ', 1)[-1]}")
                continue
            lines.append(f"{label} FAILS: saccade-cli: {why}")
            failures.append(f"{name} {method}")
            continue
        ours = json.loads(run.stdout)
        with open(os.path.join(work, method + ".json"), "w", encoding="utf-8") as f:
            f.write(run.stdout)
        target = int(ours["target"])
        note = ""
        if method == "gradient":
            theirs, seconds, first = timed(lambda: Saliency(logits).attribute(x.clone(), target=target, abs=True))
        elif method == "gradient-x-input":
            theirs, seconds, first = timed(lambda: InputXGradient(logits).attribute(x.clone(), target=target))
        elif method == "integrated-gradients":
            theirs, seconds, first = timed(lambda: IntegratedGradients(logits).attribute(
                x.clone(), baselines=torch.zeros_like(x), target=target, n_steps=64, method="gausslegendre"))
        elif method == "smoothgrad":
            def smoothgrad(seed: int = a.seed):
                torch.manual_seed(seed)  # Saccade's draws: see the docstring
                return NoiseTunnel(Saliency(logits)).attribute(x.clone(), nt_type="smoothgrad", nt_samples=SAMPLES,
                                                               stdevs=SIGMA, target=target, abs=False)
            theirs, seconds, first = timed(smoothgrad)
            # Other draws must differ by far more than the tolerance, or the check would prove nothing.
            other = smoothgrad(a.seed + 1).detach().abs().sum(1)[0]
            mags = theirs.detach().abs().sum(1)[0]
            apart = float((other - mags).abs().max() / mags.abs().max())
            note = f", same {SAMPLES} draws (seed {a.seed}; seed {a.seed + 1} differs by {apart:.1e})"
        elif method == "occlusion":
            rows, cols = ours["grid"]["rows"], ours["grid"]["cols"]
            if size % rows or size % cols:
                lines.append(f"{label} FAILS: saccade-cli's {rows}x{cols} cells do not tile {size} pixels evenly")
                failures.append(f"{name} {method}")
                continue
            window = (channels, size // rows, size // cols)

            def occlusion():
                with torch.no_grad():
                    return Occlusion(probabilities).attribute(x.clone(), sliding_window_shapes=window,
                                                              strides=window, baselines=0.0, target=target)
            theirs, seconds, first = timed(occlusion)
        else:
            if layer_model is None:
                lines.append(f"{label} FAILS: saccade-cli offers Grad-CAM but no Python model of {name} is known")
                failures.append(f"{name} {method}")
                continue
            module, layer = layer_model
            cam = through(module)
            theirs, seconds, first = timed(lambda: LayerGradCam(cam, layer).attribute(x.clone(), target=target))
            theirs = theirs.detach().clamp_min(0)  # [1, 1, h, w]; saccade-cli writes it after the ReLU
            h, w = theirs.shape[-2:]
            if size % h or size % w:
                lines.append(f"{label} FAILS: the {h}x{w} grid does not tile {size} pixels evenly")
                failures.append(f"{name} {method}")
                continue
            note = f", {h}x{w} grid after ReLU (file with `features`)"
        theirs = theirs.detach().abs().sum(1)[0]
        mine = torch.tensor(ours["pixels"], dtype=torch.float64)
        if method == "gradcam":  # each cell spread over its pixels: must be constant there
            h, w = theirs.shape
            cells = mine.view(h, size // h, w, size // w)
            spread = float((cells - cells[:, :1, :, :1]).abs().max())
            mine = cells[:, 0, :, 0]
            if spread != 0:
                note += f", cells not constant ({spread:.1e})"
        scale = float(theirs.abs().max())
        if mine.shape != theirs.shape or scale == 0:
            lines.append(f"{label} FAILS: shape {tuple(mine.shape)} against Captum's {tuple(theirs.shape)}, "
                         "or all zero")
            failures.append(f"{name} {method}")
            continue
        worst = float((mine - theirs.double()).abs().max()) / scale
        if method == "gradcam" and "not constant" in note:
            worst = max(worst, 1.0)
        verdict = "ok" if worst <= TOLERANCE else "FAILS"
        if verdict != "ok":
            failures.append(f"{name} {method}")
        warm = saccade_warm_ms(a.cli, file, ["--image", png, "--resize", str(size), "--center-crop", str(size)], method)
        timing = (f"Saccade {warm:.1f} ms, Captum {1000 * seconds:.1f} ms (medians of {REPEATS} warm calls), "
                  f"Captum / Saccade {1000 * seconds / warm:.2f}" if warm else "Saccade's bench failed: not timed")
        lines.append(f"{label} {verdict}: class {target}, largest difference {worst:.1e} of Captum's peak; {timing}{note}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", action="append", help="TorchScript file (repeatable; default: grid_attention.pt and "
                                                    "vit_model.pt from samples/torchscript)")
    p.add_argument("--cli", default=os.environ.get("SACCADE_CLI", os.path.join(HERE, "..", "build", "app", "cli",
                                                                                "saccade-cli")))
    p.add_argument("--work", default="captum-peer", help="folder for the images and saccade-cli's answers")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    models = a.model or [os.path.join(SAMPLES_DIR, f) for f in ("grid_attention.pt", "vit_model.pt")]
    torch.set_num_threads(1)
    os.makedirs(a.work, exist_ok=True)
    failures: List[str] = []
    lines: List[str] = []
    for path in models:
        compare(a, path, failures, lines)
    for line in lines:
        print(line)
    compared = sum(1 for line in lines if " not offered: " not in line)
    offered = len(lines) - compared
    print(f"{compared - len(failures)} of {compared} agree with Captum, {offered} not offered "
          f"(torch {torch.__version__}, captum {importlib.import_module('captum').__version__}; "
          f"{', '.join(os.path.basename(m) for m in models)})")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
