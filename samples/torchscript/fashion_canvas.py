"""Translated Fashion-MNIST canvases for the example exports: each 28x28 item at a random place on
a black square canvas, as Saccade's translated-fashion60 set does (the placements differ; the
distribution is the same kind). Reads Debian's dataset-fashion-mnist or $SACCADE_FASHION_MNIST."""

import gzip
import os

import numpy as np
import torch

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
DIR = os.environ.get("SACCADE_FASHION_MNIST") or "/usr/share/datasets/fashion-mnist"


def _idx(name):
    path = os.path.join(DIR, name)
    opener = gzip.open if os.path.exists(path + ".gz") else open
    with opener(path + ".gz" if os.path.exists(path + ".gz") else path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(split):
    """(images uint8 [N, 28, 28], labels int64 [N]) of 'train' or 't10k'."""
    return _idx(f"{split}-images-idx3-ubyte"), _idx(f"{split}-labels-idx1-ubyte").astype(np.int64)


def canvases(images, labels, indices, side, rng):
    """Float canvases [B, 1, side, side] in [0, 1] and labels [B] for `indices`."""
    out = np.zeros((len(indices), 1, side, side), dtype=np.float32)
    for row, i in enumerate(indices):
        x, y = rng.integers(0, side - 28 + 1, size=2)
        out[row, 0, y:y + 28, x:x + 28] = images[i] / 255.0
    return torch.from_numpy(out), torch.from_numpy(labels[indices])


def train(model, steps, side, seed, batch=64, lr=2e-3, forward=None):
    """Adam on cross-entropy of the final logits; returns test accuracy on 1,000 canvases."""
    rng = np.random.default_rng(seed)
    images, labels = load("train")
    forward = forward or model
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for step in range(steps):
        x, y = canvases(images, labels, rng.integers(0, len(images), size=batch), side, rng)
        logits = forward(x)["logits"]
        if logits.dim() == 3:  # per-step logits: every step learns to answer
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.repeat_interleave(logits.size(1)))
        else:
            loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if steps >= 10 and (step + 1) % max(1, steps // 10) == 0:
            print(f"step {step + 1}/{steps}: loss {loss.item():.3f}", flush=True)
    model.eval()
    test_images, test_labels = load("t10k")
    x, y = canvases(test_images, test_labels, np.arange(1000), side, np.random.default_rng(12345))
    with torch.no_grad():
        logits = forward(x)["logits"]
    predicted = (logits[:, -1] if logits.dim() == 3 else logits).argmax(-1)
    return (predicted == y).float().mean().item()


def arguments(description, default_steps, default_out):
    import argparse
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=default_steps, help="training steps (batch 64)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=default_out, help="where to write the TorchScript file")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    if a.steps < 0:
        p.error("--steps must be >= 0")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)  # before the model is built: its initial weights come from the seed too
    return a
