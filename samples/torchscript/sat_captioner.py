"""A small Show-Attend-Tell captioner (Xu et al. 2015) in plain PyTorch, exported with
torch.jit.script for Saccade's captioner contract (docs/model-contract.md, "Captioners").

Re-create the bundled file (trained for --steps batches on one CPU thread, about 3 minutes, on scenes drawn here in
Python after Saccade's scenes64 recipe: 1-3 filled shapes, six colours, two sizes, relations;
the pixels differ from Saccade's own scenes, the distribution is the same kind):

    /usr/bin/python3 samples/torchscript/sat_captioner.py --seed 1 --steps 900 --out samples/torchscript/sat_captioner.pt

`--steps 0` writes it untrained (random weights under the seed).

The encoder turns a 64x64 RGB image into an 8x8 grid of 64-d annotations; an LSTM decoder with
additive attention reads one soft-attended context per word and greedily picks the next word from
Saccade's scene vocabulary (that of scenes64, so `--sample scenes64:N` opens with references).
`caption(image, max_len)` returns `tokens` [N, T] (int64) and `attention` [N, T, 8, 8]; the
module carries `vocabulary`, `end_token`, `input_size` and `dataset`.
"""

import argparse
import time
from typing import Dict, List

import numpy as np
import torch
from torch import nn

# sceneVocabulary() of core/data/procedural_scenes.cpp: ids 0..3 are <start>, <end>, <pad>, <unk>.
VOCABULARY = ["<start>", "<end>", "<pad>", "<unk>", "a", "small", "large",
              "red", "green", "blue", "yellow", "white", "purple",
              "circle", "square", "triangle", "cross",
              "left", "right", "of", "above", "below", "which", "is"]


# Saccade's scenes64 recipe (core/data/procedural_scenes.cpp), redrawn in numpy.
COLOURS = [(215, 40, 40), (50, 190, 60), (50, 90, 235), (230, 215, 40), (235, 235, 235), (150, 60, 210)]
COLOUR_NAMES = ["red", "green", "blue", "yellow", "white", "purple"]
SHAPES = ["circle", "square", "triangle", "cross"]
RELATIONS = [["left", "of"], ["right", "of"], ["above"], ["below"]]


def _mask(shape, side):
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    last = side - 1
    if shape == 0:
        return (xx - last / 2) ** 2 + (yy - last / 2) ** 2 <= (last / 2) ** 2 + 0.5
    if shape == 1:
        return np.ones((side, side), bool)
    if shape == 2:  # apex at the top centre, base along the bottom
        return (yy >= 0) & (np.abs(xx - last / 2) <= yy / 2 + 0.5)
    arm = max(3, round(side / 3))
    off = (side - arm) // 2
    return ((yy >= off) & (yy < off + arm)) | ((xx >= off) & (xx < off + arm))


def _relations(a, b):
    out = []
    if a[0] + a[2] <= b[0]: out.append(0)
    if b[0] + b[2] <= a[0]: out.append(1)
    if a[1] + a[2] <= b[1]: out.append(2)
    if b[1] + b[2] <= a[1]: out.append(3)
    return out


def scene(rng, size=64):
    """(image float [3, size, size] in [0, 1], caption words) after renderScene's grammar."""
    n = int(rng.integers(1, 4))
    bg = int(rng.integers(0, 51))
    img = np.full((size, size, 3), bg, np.float32)
    placed = []
    for _ in range(n):
        while True:
            shape, colour, large = int(rng.integers(4)), int(rng.integers(6)), int(rng.integers(2))
            if all((q[3], q[4], q[5]) != (shape, colour, large) for q in placed):
                break
        frac = 0.30 + 0.08 * rng.random() if large else 0.16 + 0.06 * rng.random()
        side = max(9 if large else 6, round(size * frac))
        for _ in range(200):
            x, y = int(rng.integers(1, size - side)), int(rng.integers(1, size - side))
            if all(x + side + 2 <= q[0] or q[0] + q[2] + 2 <= x or y + side + 2 <= q[1] or q[1] + q[2] + 2 <= y
                   for q in placed):
                placed.append((x, y, side, shape, colour, large))
                break
    words = []
    for k, (x, y, side, shape, colour, large) in enumerate(placed):
        shade = int(rng.integers(-15, 16))
        rgb = [min(255, max(0, c + shade + int(rng.integers(-5, 6)))) for c in COLOURS[colour]]
        img[y:y + side, x:x + side][_mask(shape, side)] = rgb
        if k == 1:
            words += RELATIONS[int(rng.choice(_relations(placed[0], placed[1])))]
        elif k > 1:
            words += ["which", "is"] + RELATIONS[int(rng.choice(_relations(placed[k - 1], placed[k])))]
        words += ["a", ["small", "large"][large], COLOUR_NAMES[colour], SHAPES[shape]]
    return img.transpose(2, 0, 1) / 255.0, words


def batch(rng, n, max_len=20):
    """Images [n, 3, 64, 64] and targets [n, max_len] (words, <end>, then <pad>)."""
    images, targets = [], np.full((n, max_len), 2, np.int64)
    for i in range(n):
        im, words = scene(rng)
        ids = [VOCABULARY.index(w) for w in words][:max_len - 1] + [1]
        targets[i, :len(ids)] = ids
        images.append(im)
    return torch.from_numpy(np.stack(images).astype(np.float32)), torch.from_numpy(targets)


def train(model, steps, seed, batch_size=32, lr=3e-3):
    """Teacher-forced cross-entropy on `steps` batches of fresh scenes; <pad> ignored."""
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    start, step = time.time(), 0
    while step < steps:
        x, y = batch(rng, batch_size)
        logits = model.teacher_forced(x, y)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 100 == 0:
            print(f"step {step}: loss {loss.item():.3f} ({time.time() - start:.0f} s)", flush=True)
    return step


class SatCaptioner(nn.Module):
    vocabulary: List[str]
    end_token: int
    start_token: int
    input_size: List[int]
    dataset: str

    def __init__(self, dim: int = 64, hidden: int = 96, embed: int = 32):
        super().__init__()
        self.vocabulary = list(VOCABULARY)
        self.end_token = 1
        self.start_token = 0
        self.input_size = [3, 64, 64]
        self.dataset = "scenes64"                          # eval's and the GUI's default data
        self.hidden = hidden
        self.encoder = nn.Sequential(                      # 64 -> 32 -> 16 -> 8
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 48, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(48, dim, 3, stride=2, padding=1), nn.ReLU())
        self.embed = nn.Embedding(len(VOCABULARY), embed)
        self.init_h = nn.Linear(dim, hidden)
        self.init_c = nn.Linear(dim, hidden)
        self.att_feat = nn.Linear(dim, hidden)             # additive (Bahdanau) attention
        self.att_hid = nn.Linear(hidden, hidden)
        self.att_out = nn.Linear(hidden, 1)
        self.lstm = nn.LSTMCell(embed + dim, hidden)
        self.words = nn.Linear(hidden + dim, len(VOCABULARY))

    def start(self, image: torch.Tensor):
        f = self.encoder(image)                            # [N, dim, 8, 8]
        a_in = f.flatten(2).transpose(1, 2)                # [N, 64 cells, dim]
        mean = a_in.mean(1)
        return a_in, self.att_feat(a_in), torch.tanh(self.init_h(mean)), torch.tanh(self.init_c(mean))

    def step(self, a_in: torch.Tensor, keys: torch.Tensor, word: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        e = self.att_out(torch.tanh(keys + self.att_hid(h).unsqueeze(1))).squeeze(2)
        alpha = torch.softmax(e, -1)                       # [N, cells]: additive attention
        z = (alpha.unsqueeze(2) * a_in).sum(1)
        h, c = self.lstm(torch.cat([self.embed(word), z], 1), (h, c))
        return self.words(torch.cat([h, z], 1)), alpha, h, c

    @torch.jit.export
    def caption(self, image: torch.Tensor, max_len: int) -> Dict[str, torch.Tensor]:
        a_in, keys, h, c = self.start(image)
        n = image.shape[0]
        word = torch.full([n], self.start_token, dtype=torch.long, device=image.device)
        tokens: List[torch.Tensor] = []
        maps: List[torch.Tensor] = []
        for _ in range(max_len):
            logits, alpha, h, c = self.step(a_in, keys, word, h, c)
            logits[:, self.start_token] = -1e9             # never <start>, <pad>, <unk>
            logits[:, 2] = -1e9
            logits[:, 3] = -1e9
            word = logits.argmax(-1)                       # greedy
            tokens.append(word)
            maps.append(alpha.view(n, 8, 8))
        return {"tokens": torch.stack(tokens, 1), "attention": torch.stack(maps, 1)}

    @torch.jit.ignore
    def teacher_forced(self, image: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        a_in, keys, h, c = self.start(image)
        word = torch.full([image.shape[0]], self.start_token, dtype=torch.long)
        out = []
        for t in range(targets.shape[1]):
            logits, _, h, c = self.step(a_in, keys, word, h, c)
            out.append(logits)
            word = targets[:, t]
        return torch.stack(out, 1)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.caption(image, 12)["tokens"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=900, help="training batches (0: untrained)")
    p.add_argument("--out", default="sat_captioner.pt")
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    model = SatCaptioner()
    steps = train(model, args.steps, args.seed) if args.steps > 0 else 0
    model.eval()
    scripted = torch.jit.script(model)
    x, _ = batch(np.random.default_rng(args.seed + 1000), 2)
    out = scripted.caption(x, 12)
    assert out["tokens"].dtype == torch.int64 and out["attention"].shape == (2, 12, 8, 8)
    torch.jit.save(scripted, args.out)
    words = [VOCABULARY[int(t)] for t in out["tokens"][0]]
    print(f"wrote {args.out}: {steps} training steps (seed {args.seed}); a held-out scene: {' '.join(words)}")


if __name__ == "__main__":
    main()
