#!/usr/bin/env python3
"""Read a Saccade trace and run set (plain JSON) and plot them with matplotlib.

    saccade-cli trace --model samples/models/patch-hard-fashion60.pt --sample translated-fashion60:12 \
        --rule sample --seed 3 --json --out trace.json
    saccade-cli compare --model samples/models/patch-hard-fashion60.pt --sample translated-fashion60:12 \
        --runs 200 --out runs.json
    python3 examples/plot_trace_and_runs.py trace.json runs.json figure.png

The figure: one panel per step with that step's attention over the cell grid (the cell a hard rule
read outlined, the ground-truth box dashed), then the outputs of the sampled runs and their mean
attention entropy per step with one standard deviation. The schemas are in docs/schemas.md. It
prints one line per file with the figures it read.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402


def load(path, schema):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if data.get("schema") != schema:
        sys.exit(f"{path}: not a {schema} file (schema {data.get('schema')!r})")
    if data.get("version") != 1:
        sys.exit(f"{path}: {schema} version {data.get('version')} is not one this reader knows (1)")
    return data


def draw_step(ax, trace, k):
    step = trace["steps"][k]
    grid = step["grid"]
    rows, cols = grid["rows"], grid["cols"]
    probs = [grid["probs"][r * cols:(r + 1) * cols] for r in range(rows)]
    width, height = trace["image_size"]
    cw, ch = width / cols, height / rows
    ax.imshow(probs, cmap="inferno", extent=(0, width, height, 0), vmin=0)
    for cell in step.get("chosen_cells", []):
        r, c = divmod(cell, cols)
        ax.add_patch(Rectangle((c * cw, r * ch), cw, ch, fill=False, edgecolor="cyan", linewidth=2))
    for x, y, w, h in trace.get("ground_truth", {}).get("boxes", []):
        ax.add_patch(Rectangle((x, y), w, h, fill=False, edgecolor="lime", linestyle="--"))
    ax.set_title(f"step {k + 1}: entropy {step['entropy']:.2f} nats", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: plot_trace_and_runs.py TRACE.json RUNSET.json OUT.png")
    trace = load(argv[1], "saccade.trace")
    runs = load(argv[2], "saccade.runset")
    steps = len(trace["steps"])
    fig, axes = plt.subplots(2, max(steps, 2), figsize=(3 * max(steps, 2), 6.5))
    for k in range(steps):
        draw_step(axes[0][k], trace, k)
    for ax in axes[0][steps:]:
        ax.axis("off")

    stats, names = runs["stats"], runs["class_names"]
    shares = [c / stats["runs"] for c in stats["label_counts"]]
    shown = sorted(range(len(shares)), key=lambda i: -shares[i])[:5]
    ax = axes[1][0]
    ax.barh([names[i] for i in reversed(shown)], [shares[i] for i in reversed(shown)], color="#3b7dd8")
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of runs")
    ax.set_title(f"outputs of {stats['runs']} sampled runs", fontsize=9)
    ax = axes[1][1]
    mean, sd = stats["entropy_mean"], stats["entropy_std"]
    x = list(range(1, len(mean) + 1))
    ax.plot(x, mean, marker="o")
    ax.fill_between(x, [m - s for m, s in zip(mean, sd)], [m + s for m, s in zip(mean, sd)], alpha=0.3)
    ax.set_xlabel("step")
    ax.set_ylabel("entropy (nats)")
    ax.set_title("attention entropy per step, mean and 1 sd", fontsize=9)
    for ax in axes[1][2:]:
        ax.axis("off")
    fig.suptitle(f"{trace['model_id']} on {trace['image_id']}: rule {trace['rule']}, seed {trace['seed']}, "
                 f"answer {trace['output']['text']}")
    fig.tight_layout()
    fig.savefig(argv[3], dpi=80)

    print(f"trace: {steps} steps, rule {trace['rule']}, seed {trace['seed']}, answer {trace['output']['text']}")
    print(f"runs: {stats['runs']} runs, agreement with {runs['deterministic_rule']} {stats['agreement']:.4f}, "
          f"accuracy {stats['accuracy']:.4f}, {stats['distinct_paths']} distinct paths")
    print(f"wrote {argv[3]}")


if __name__ == "__main__":
    main(sys.argv)
