"""Integrated gradients in plain PyTorch autograd on a bundled patch classifier, for `saccade-cli
bench attribute --reference scripts/attribution_reference.py`. The patch model's forward (dense
variant, additive scorer; soft or argmax attention) is written here as a PyTorch user would, with
the checkpoint's own weights (read with torch.jit.load), and integrated gradients run two ways:
the textbook loop (one forward and backward per point of the path) and one batch of all points.
Both use the trapezoid rule over steps + 1 points from a black baseline. Prints one JSON line.

  OMP_NUM_THREADS=1 /usr/bin/python3 scripts/attribution_reference.py --model M.pt --image x.u8 \
      --size 60 --channels 1 --steps 64 --target 3 --rule soft
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn


class PatchModel(nn.Module):
    def __init__(self, params, steps, half_cell):
        super().__init__()
        p = {k[len("model."):]: v for k, v in params.items() if k.startswith("model.")}
        self.p, self.steps, self.half_cell = p, steps, half_cell

    def forward(self, x, rule):
        p, F = self.p, nn.functional
        g = F.relu(F.conv2d(x, p["encoder.0.weight"], p["encoder.0.bias"], padding=2))
        g = F.max_pool2d(g, 2)
        g = F.relu(F.conv2d(g, p["encoder.3.weight"], p["encoder.3.bias"], padding=1))
        g = F.max_pool2d(g, self.half_cell)
        g = F.relu(F.conv2d(g, p["encoder.6.weight"], p["encoder.6.bias"], padding=1))
        g = F.relu(F.conv2d(g, p["encoder.8.weight"], p["encoder.8.bias"], padding=1))
        keys = g.flatten(2).transpose(1, 2)  # [B, L, D]
        prepared = F.linear(keys, p["scorer.U.weight"], p["scorer.U.bias"])
        mean = keys.mean(1)
        h = torch.tanh(F.linear(mean, p["init_h.weight"], p["init_h.bias"]))
        c = torch.tanh(F.linear(mean, p["init_c.weight"], p["init_c.bias"]))
        for _ in range(self.steps):
            q = F.linear(h, p["scorer.W.weight"])
            scores = F.linear(torch.tanh(q.unsqueeze(1) + prepared), p["scorer.v.weight"]).squeeze(-1)
            probs = torch.softmax(scores, -1)
            if rule == "soft":
                context = (probs.unsqueeze(-1) * keys).sum(1)
            else:
                context = keys[torch.arange(keys.shape[0]), probs.detach().argmax(-1)]
            context = torch.sigmoid(F.linear(h, p["gate.weight"], p["gate.bias"])) * context
            h, c = torch._VF.lstm_cell(context, (h, c), p["rnn.weight_ih"], p["rnn.weight_hh"],
                                       p["rnn.bias_ih"], p["rnn.bias_hh"])
        return F.linear(h, p["classifier.weight"], p["classifier.bias"])


def trapezoid(steps):
    alphas = torch.arange(steps + 1, dtype=torch.float32) / steps
    weights = torch.full((steps + 1,), 1.0 / steps)
    weights[0] = weights[-1] = 0.5 / steps
    return alphas, weights


def ig_loop(net, x, target, steps, rule):
    alphas, weights = trapezoid(steps)
    total = torch.zeros_like(x)
    for a, w in zip(alphas, weights):
        point = (a * x).requires_grad_(True)
        net(point, rule)[0, target].backward()
        total += w * point.grad
    return x * total


def ig_batched(net, x, target, steps, rule):
    alphas, weights = trapezoid(steps)
    path = (alphas.view(-1, 1, 1, 1) * x).requires_grad_(True)
    (grad,) = torch.autograd.grad(net(path, rule)[:, target].sum(), path)
    return x * (weights.view(-1, 1, 1, 1) * grad).sum(0, keepdim=True)


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--image", required=True, help="raw bytes, HWC, size x size x channels")
    for name, default in [("size", 60), ("channels", 1), ("steps", 64), ("target", 0), ("repeats", 5),
                          ("threads", 1), ("attention-steps", 4), ("grid", 10)]:
        ap.add_argument("--" + name, type=int, default=default)
    ap.add_argument("--rule", default="soft", choices=["soft", "argmax"])
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    params = {k: v.detach() for k, v in torch.jit.load(a.model).named_parameters()}
    net = PatchModel(params, a.attention_steps, a.size // 2 // a.grid)
    raw = open(a.image, "rb").read()
    x = torch.tensor(list(raw), dtype=torch.float32).view(1, a.size, a.size, a.channels).permute(0, 3, 1, 2) / 255
    with torch.no_grad():
        f_x = net(x, a.rule)[0, a.target].item()
        f_b = net(torch.zeros_like(x), a.rule)[0, a.target].item()
    attribution = ig_batched(net, x, a.target, a.steps, a.rule)
    loop_attribution = ig_loop(net, x, a.target, a.steps, a.rule)
    change = f_x - f_b
    print(json.dumps({
        "torch": torch.__version__, "threads": torch.get_num_threads(), "steps": a.steps, "rule": a.rule,
        "f_input": f_x, "f_baseline": f_b, "attribution_sum": attribution.sum().item(),
        "completeness_error": abs(attribution.sum().item() - change) / abs(change) if change else None,
        "loop_batched_max_difference": (attribution - loop_attribution).abs().max().item(),
        "loop_ms": median_ms(lambda: ig_loop(net, x, a.target, a.steps, a.rule), a.repeats),
        "batched_ms": median_ms(lambda: ig_batched(net, x, a.target, a.steps, a.rule), a.repeats),
    }))


if __name__ == "__main__":
    main()
