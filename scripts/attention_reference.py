#!/usr/bin/python3
"""Reference for `saccade-cli bench attention --reference`: plain PyTorch exact attention,
softmax(Q K^T / sqrt(d)) V, at the same lengths, width, heads and threads, on random inputs.
Prints one JSON line: {"torch": version, "threads": n, "full": [{"n", "ms", "backward_ms"}, ...]}
with medians of --repeats timed runs after one warm-up (forward without autograd; backward of the
forward pass with gradients, timed alone)."""
import argparse
import json
import math
import time

import torch


def attention(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--lengths", default="256,1024,4096")
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    rows = []
    for n in [int(x) for x in a.lengths.split(",")]:
        g = torch.Generator().manual_seed(a.seed + n)
        shape = (a.batch, a.heads, n, a.dim)
        q, k, v, grad = (torch.randn(shape, generator=g) for _ in range(4))
        with torch.no_grad():
            ms = median_ms(lambda: attention(q, k, v), a.repeats)
        backward = []
        for r in range(a.repeats + 1):
            qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
            out = attention(qg, kg, vg)
            t0 = time.perf_counter()
            out.backward(grad)
            if r > 0:
                backward.append((time.perf_counter() - t0) * 1000.0)
        backward.sort()
        rows.append({"n": n, "ms": ms, "backward_ms": backward[len(backward) // 2]})
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "full": rows}))


if __name__ == "__main__":
    main()
