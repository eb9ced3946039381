#!/usr/bin/env python3
"""Compares two trace JSON files of the same run on two devices (saccade-cli trace or translate
--json, one with --device cpu, one with --device cuda): every number within --atol, every
selection, token and word equal. Prints one JSON line: {"a", "b", "agree", "max_abs_diff",
"numbers", "exact_fields", "first_difference"}; exits 0 when they agree, 1 when not, 2 on bad input.

Numbers written as integers in both files (cells, indices, counts) must be equal; fractional ones
(probabilities, log-probabilities, glimpse centres) may differ by --atol. The "device" field is
ignored. Standard library only.
"""
import argparse
import json
import sys


class Comparison:
    def __init__(self, atol):
        self.atol = atol
        self.max_diff = 0.0
        self.numbers = 0
        self.exact = 0
        self.first = None

    def differ(self, path, what):
        if self.first is None:
            self.first = f"{path}: {what}"

    def walk(self, a, b, path):
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                if key == "device":
                    continue
                if key not in a or key not in b:
                    self.differ(f"{path}.{key}", "present in one file only")
                    continue
                self.walk(a[key], b[key], f"{path}.{key}")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                self.differ(path, f"{len(a)} items against {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                self.walk(x, y, f"{path}[{i}]")
        elif isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or a is None:
            self.exact += 1
            if a != b:
                self.differ(path, f"{a!r} against {b!r}")
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            self.numbers += 1
            if isinstance(a, int) and isinstance(b, int):
                self.exact += 1
                if a != b:
                    self.differ(path, f"{a} against {b} (a selection or count)")
                return
            diff = abs(float(a) - float(b))
            self.max_diff = max(self.max_diff, diff)
            if diff > self.atol:
                self.differ(path, f"{a} against {b} (|difference| {diff:.3g} > {self.atol})")
        else:
            self.differ(path, f"{type(a).__name__} against {type(b).__name__}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--atol", type=float, default=1e-4)
    args = parser.parse_args()
    docs = []
    for path in (args.a, args.b):
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"compare_traces: cannot read '{path}': {e}", file=sys.stderr)
            return 2
    c = Comparison(args.atol)
    c.walk(docs[0], docs[1], "$")
    print(json.dumps({"a": args.a, "b": args.b, "agree": c.first is None, "max_abs_diff": c.max_diff,
                      "numbers": c.numbers, "exact_fields": c.exact, "first_difference": c.first}))
    return 0 if c.first is None else 1


if __name__ == "__main__":
    sys.exit(main())
