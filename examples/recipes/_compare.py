"""Compares one saccade-cli JSON answer with the reference a recipe wrote (scripts/check-ecosystem.sh).

    python examples/recipes/_compare.py KIND ANSWER.json REFERENCE.json

KIND: trace (class probabilities), gradient (attribute --method gradient --json --pixels),
translate (output tokens and the alignment), or schema:NAME (only that the answer is JSON of that
schema, e.g. schema:saccade.cost). Prints one line, what held or why not, and exits 0 or 1.
Values are compared relative to the reference's largest magnitude, to 1e-4.
"""

import json
import math
import sys
from typing import List

TOLERANCE = 1e-4


def flat(x: object) -> List[float]:
    if isinstance(x, list):
        return [v for item in x for v in flat(item)]
    return [float(x)]


def relative(ours: object, theirs: object, what: str) -> float:
    a, b = flat(ours), flat(theirs)
    if len(a) != len(b):
        raise ValueError(f"{what}: {len(a)} values against PyTorch's {len(b)}")
    scale = max(abs(v) for v in b)
    if not all(math.isfinite(v) for v in a) or scale == 0:
        raise ValueError(f"{what}: not finite, or PyTorch's are all zero")
    worst = max(abs(x - y) for x, y in zip(a, b)) / scale
    if worst > TOLERANCE:
        raise ValueError(f"{what} differ from PyTorch's by {worst:.2e} (relative; tolerance {TOLERANCE:g})")
    return worst


def check(kind: str, ours: dict, ref: dict) -> str:
    if kind == "trace":
        worst = relative(ours["output"]["probs"], ref["probs"], "probabilities")
        if ours["output"]["label"] != ref["label"]:
            raise ValueError(f"class {ours['output']['label']} against PyTorch's {ref['label']}")
        return f"class {ref['label']} as PyTorch, probabilities within {worst:.1e}"
    if kind == "gradient":
        if ours.get("target") != ref["label"]:
            raise ValueError(f"attributed class {ours.get('target')}, not {ref['label']}")
        worst = relative(ours["pixels"], ref["gradient_pixels"], "gradient pixels")
        return f"gradient map as PyTorch's autograd, within {worst:.1e}"
    if kind == "translate":
        if ours["tokens"] != ref["tokens"]:
            raise ValueError(f"output {''.join(ours['tokens'])!r} against PyTorch's {''.join(ref['tokens'])!r}")
        worst = relative(ours["alignment"], ref["alignment"], "alignment")
        return f"{len(ref['tokens'])} tokens as PyTorch, alignment within {worst:.1e}"
    if kind.startswith("schema:"):
        want = kind.split(":", 1)[1]
        if ours.get("schema") != want:
            raise ValueError(f"schema {ours.get('schema')!r}, not {want!r}")
        return want
    raise ValueError(f"unknown kind {kind!r}")


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: _compare.py KIND ANSWER.json REFERENCE.json", file=sys.stderr)
        return 2
    kind, answer, reference = sys.argv[1:]
    try:
        with open(answer, encoding="utf-8") as f:
            ours = json.load(f)
        with open(reference, encoding="utf-8") as f:
            ref = json.load(f)
        print(check(kind, ours, ref))
        return 0
    except KeyError as e:
        print(f"the answer has no key {e}")
        return 1
    except (ValueError, TypeError, OSError) as e:
        print(str(e).replace("\n", " ")[:300])
        return 1


if __name__ == "__main__":
    sys.exit(main())
