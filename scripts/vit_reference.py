"""The PyTorch equivalent of Saccade's native Vision Transformer, for `saccade-cli bench vit
--reference scripts/vit_reference.py`: the same network (a strided-convolution patch embedding,
CLS token, learned positions, pre-norm layers with one qkv projection, softmax attention, GELU MLP,
a linear head on the CLS token), the same AdamW step of cross-entropy on random images, written as
a PyTorch user would. Prints one JSON line: {"images_per_s": ..., "step_ms": ..., "torch": ...}.

  /usr/bin/python3 scripts/vit_reference.py --threads 1 --batch 64
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self, dim, heads, mlp):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, mlp), nn.GELU(), nn.Linear(mlp, dim))

    def forward(self, x):
        n, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax((q * (d // self.heads) ** -0.5) @ k.transpose(-2, -1), -1)
        x = x + self.proj((a @ v).transpose(1, 2).reshape(n, t, d))
        return x + self.mlp(self.norm2(x))


class Vit(nn.Module):
    def __init__(self, image, patch, dim, layers, heads, mlp, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(1, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.position = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim) * 0.02)
        self.layers = nn.ModuleList([Layer(dim, heads, mlp) for _ in range(layers)])
        self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

    def forward(self, x):
        p = self.embed(x - 0.5).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.position
        for layer in self.layers:
            h = layer(h)
        return self.head(self.norm(h[:, 0]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in [("threads", 1), ("batch", 64), ("repeats", 9), ("image", 60), ("patch", 6), ("dim", 64),
                          ("layers", 4), ("heads", 4), ("mlp", 128)]:
        p.add_argument("--" + name, type=int, default=default)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    net = Vit(a.image, a.patch, a.dim, a.layers, a.heads, a.mlp)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.05)
    x = torch.rand(a.batch, 1, a.image, a.image)
    y = torch.randint(10, (a.batch,))

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()

    for _ in range(2):
        step()
    times = []
    for _ in range(a.repeats):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000)
    ms = statistics.median(times)
    print(json.dumps({"images_per_s": 1000 * a.batch / ms, "step_ms": ms, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
