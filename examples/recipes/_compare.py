"""Compares one saccade-cli JSON answer with the reference a recipe wrote (scripts/check-ecosystem.sh).

    python examples/recipes/_compare.py KIND ANSWER.json REFERENCE.json

KIND: trace (class probabilities), gradient (attribute --method gradient --json --pixels),
translate (output tokens and the alignment), schema:NAME (only that the answer is JSON of that
schema, e.g. schema:saccade.cost), and for a text encoder's reference (minilm_text_encoder.py),
which holds several sentences and pairs, with I the 0-based index into its "sentences" or
"similarity" list:
  encode:I      translate --model FILE --text TEXT --json: the pieces ("source", exactly), the
                "embedding" and every "encoder layer L head H" map against self_attentions[L-1][H-1]
  similarity:I  similarity --model FILE --text A --text B --json: each sentence's tokens (exactly, as
                the reference's pieces), the cosine (to 1e-4, its range being [-1, 1]) and both
                attribution vectors
Prints one line, what held or why not, and exits 0 or 1.
Values are compared relative to the reference's largest magnitude (per map, per vector), to 1e-4.
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


def pick(ref: dict, key: str, index: str) -> dict:
    """The reference's key[index], index as written after KIND's colon."""
    if not index.isdigit() or int(index) >= len(ref[key]):
        raise ValueError(f"no {key}[{index}] in the reference ({len(ref[key])} there)")
    return ref[key][int(index)]


def pieces_of(whole: dict, text: str) -> List[str]:
    for sentence in whole["sentences"]:
        if sentence["text"] == text:
            return sentence["pieces"]
    raise ValueError(f"no sentence {text!r} in the reference")


def check_encode(ours: dict, ref: dict) -> str:
    if ours["source"] != ref["pieces"]:
        raise ValueError(f"pieces {ours['source']} against BertTokenizer's {ref['pieces']}")
    worst = relative(ours["embedding"], ref["embedding"], "embedding")
    maps = {m["name"]: m["weights"] for m in ours["maps"]}
    layers, heads = len(ref["self_attentions"]), len(ref["self_attentions"][0])
    for layer in range(layers):
        for head in range(heads):
            name = f"encoder layer {layer + 1} head {head + 1}"
            if name not in maps:
                raise ValueError(f"no map {name!r} among {len(maps)}")
            worst = max(worst, relative(maps[name], ref["self_attentions"][layer][head], name))
    return f"{len(ref['pieces'])} pieces as BertTokenizer, embedding and {layers}x{heads} heads within {worst:.1e}"


def check_similarity(ours: dict, ref: dict, whole: dict) -> str:
    """ref: the reference's pair; whole: the reference (its sentences' pieces)."""
    if ours.get("schema") != "saccade.similarity":
        raise ValueError(f"schema {ours.get('schema')!r}, not 'saccade.similarity'")
    if len(ours["sentences"]) != 2:
        raise ValueError(f"{len(ours['sentences'])} sentences, not 2")
    difference = abs(float(ours["cosine"]) - ref["cosine"])
    if not difference <= TOLERANCE:
        raise ValueError(f"cosine {ours['cosine']} against PyTorch's {ref['cosine']:.6f}")
    worst = difference
    for side, sentence in zip("ab", ours["sentences"]):
        if sentence["text"] != ref[side]:
            raise ValueError(f"sentence {sentence['text']!r}, not {ref[side]!r}")
        if sentence["tokens"] != pieces_of(whole, ref[side]):
            raise ValueError(f"tokens {sentence['tokens']} against BertTokenizer's {pieces_of(whole, ref[side])}")
        what = f"attribution of {side.upper()}"
        worst = max(worst, relative(sentence["attribution"], ref["attribution_" + side], what))
    return f"cosine {ref['cosine']:.4f} and both attributions as PyTorch's, within {worst:.1e}"


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
    if kind.startswith("encode:"):
        return check_encode(ours, pick(ref, "sentences", kind.split(":", 1)[1]))
    if kind.startswith("similarity:"):
        return check_similarity(ours, pick(ref, "similarity", kind.split(":", 1)[1]), ref)
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
