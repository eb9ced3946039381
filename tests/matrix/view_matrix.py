"""The view matrix: every view of saccade-cli on every model kind, each cell run and checked.

A cell either works, and one figure of its output is checked (a map that sums to one, an accuracy
in [0, 1], a completeness error, a gradient equal to plain PyTorch's), or it is refused: exit 2 and
one line on stderr, the reason. docs/views.md holds the whole matrix; each model kind's section
there lists its cells' outcomes, and this test fails when what the program does differs from it.

  /usr/bin/python3 tests/matrix/view_matrix.py --cli BUILD/app/cli/saccade-cli --work DIR --column patch
      run one model kind's cells and compare them with docs/views.md (the ctest of each column)
  /usr/bin/python3 tests/matrix/view_matrix.py --cli ... --work DIR --write [--column KEY]
      run every column (or one) and write docs/views.md anew (after a change that moves a cell)
  /usr/bin/python3 tests/matrix/view_matrix.py --check-table
      the table at the top of docs/views.md agrees with the sections below it

The imports that no sample bundles (a CNN-backbone grid model with `features`, and a transformer
with register tokens and torchvision's preprocessing) are exported first by export_imports.py into
--work, with the photo folders they are measured on.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DOC = os.path.join(ROOT, "docs", "views.md")
MODELS = os.path.join(ROOT, "samples", "models")
IMPORTS = os.path.join(ROOT, "samples", "torchscript")
PYTHON = "/usr/bin/python3"


class Column:
    def __init__(self, key: str, label: str, model: str, kind: str, inputs: List[str], dataset: List[str],
                 exported: bool = False, mean: str = "", reference_image: str = ""):
        self.key, self.label, self.model_name, self.kind = key, label, model, kind
        self.inputs, self.dataset, self.exported, self.mean = inputs, dataset, exported, mean
        self.reference_image = reference_image  # an image of the input size, for the PyTorch check

    def model(self, work: str) -> str:
        if self.exported:
            return os.path.join(work, self.model_name)
        folder = IMPORTS if self.key.startswith("import-") else MODELS
        return os.path.join(folder, self.model_name)


def columns(work: str) -> List[Column]:
    photos = os.path.join(work, "photos")
    by_index = os.path.join(work, "photos-by-index")
    return [
        Column("patch", "patch (soft)", "patch-soft-fashion60.pt", "image", ["--sample", "translated-fashion60:3"],
               ["--dataset", "translated-fashion60"]),
        Column("ram", "RAM", "ram-fashion28.pt", "image", ["--sample", "fashion28:3"], ["--dataset", "fashion28"]),
        Column("vit", "ViT", "vit-translated-fashion60.pt", "image", ["--sample", "translated-fashion60:3"], ["--dataset", "translated-fashion60"]),
        Column("caption", "captioner", "caption-soft-scenes64.pt", "caption", ["--sample", "scenes64:3"], ["--dataset", "scenes64"]),
        Column("seq-rnn", "seq (recurrent)", "seq-dates-additive.pt", "seq", [], []),
        Column("seq-transformer", "seq (Transformer)", "seq-dates-transformer.pt", "seq", [], []),
        Column("import-grid", "import: grid", "grid_attention.pt", "image", ["--sample", "translated-fashion60:3"], ["--dataset", "translated-fashion60"]),
        Column("import-glimpses", "import: glimpses", "glimpse_model.pt", "image", ["--sample", "translated-fashion60:3"], ["--dataset", "translated-fashion60"]),
        Column("import-transformer", "import: transformer + registers", "vit_registers.pt", "image",
               ["--image", os.path.join(by_index, "1", "0.png")], ["--dataset", by_index], exported=True,
               mean="imagenet", reference_image="square64.png"),
        Column("import-cnn", "import: CNN grid + features", "cnn_grid.pt", "image",
               ["--image", os.path.join(photos, "bar", "0.png")], ["--dataset", photos], exported=True,
               mean="imagenet", reference_image="square64.png"),
        Column("import-captioner", "import: captioner", "sat_captioner.pt", "caption", ["--sample", "scenes64:3"], ["--dataset", "scenes64"]),
        Column("import-translator", "import: translator", "seq_translator.pt", "seq", [],
               ["--pairs", os.path.join(IMPORTS, "dates-test-200.tsv")]),
        Column("import-text-encoder", "import: text encoder", "text_encoder.pt", "seq", [],
               ["--pairs", os.path.join(IMPORTS, "dates-test-200.tsv")]),
    ]


# ---- running one cell -------------------------------------------------------------------------

class Outcome:
    def __init__(self, works: bool, text: str):
        self.works, self.text = works, text

    def line(self) -> str:
        return ("works: " if self.works else "refused: ") + self.text


def cell_dir(work: str, col: Column) -> str:
    """Where a column's cells write their files (columns run side by side)."""
    path = os.path.join(work, "cells", col.key)
    os.makedirs(path, exist_ok=True)
    return path


def run(cli: str, args: List[str], cwd: str, timeout: int = 600) -> Tuple[int, str, str]:
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
    device = [] if args[0] == "length" else ["--device", "cpu"]
    p = subprocess.run([cli] + args + device, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def refusal(rc: int, err: str, col: Column, work: str) -> Outcome:
    """A refused cell: exit 2 and exactly one line, the reason with the command's prefix dropped."""
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("saccade-cli: warning:")
             and "%" not in l[:12]]
    if rc != 2 or len(lines) != 1:
        raise AssertionError(f"exit {rc}, expected 0 or 2 with one line; stderr:\n{err[-2000:]}")
    reason = re.sub(r"^saccade-cli [a-z -]+: ", "", lines[0])
    reason = reason.replace(col.model(work), col.model_name).replace(work + "/", "").replace(ROOT + "/", "")
    return Outcome(False, reason)


def distribution_ok(values: List[float]) -> bool:
    return all(v >= -1e-9 for v in values) and abs(sum(values) - 1) < 1e-3


def flat(x) -> List[float]:
    if isinstance(x, list):
        return [v for item in x for v in flat(item)]
    return [float(x)]


Check = Callable[[str, Column, str], str]  # stdout, column, work -> what was checked (raises if wrong)


def check_trace(out: str, col: Column, work: str) -> str:
    t = json.loads(out)
    steps = t["steps"]
    assert steps, "no steps"
    maps = [s["distribution"]["probs"] for s in steps if s.get("distribution")]
    for m in maps:
        assert distribution_ok(flat(m)), "a step's map does not sum to 1"
    return f"{len(steps)} steps" + (", each map sums to 1" if maps else "")


def check_png(path: str) -> Check:
    def check(out: str, col: Column, work: str) -> str:
        with open(os.path.join(cell_dir(work, col), path), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG"
        return "a PNG"
    return check


def check_json_number(key_path: str, low: float, high: float, what: str) -> Check:
    def check(out: str, col: Column, work: str) -> str:
        v = json.loads(out)
        for k in key_path.split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
        assert isinstance(v, (int, float)) and low <= v <= high, f"{key_path} = {v} outside [{low}, {high}]"
        return what
    return check


def find_number(out: str, keys: List[str]) -> Optional[float]:
    """The first number under any of `keys`, anywhere in the JSON."""
    def walk(v):
        if isinstance(v, dict):
            for k in keys:
                if isinstance(v.get(k), (int, float)) and not isinstance(v.get(k), bool):
                    return v[k]
            for item in v.values():
                r = walk(item)
                if r is not None:
                    return r
        if isinstance(v, list):
            for item in v:
                r = walk(item)
                if r is not None:
                    return r
        return None
    return walk(json.loads(out))


def check_accuracy(out: str, col: Column, work: str) -> str:
    v = find_number(out, ["accuracy", "exact_match", "token_accuracy", "bleu4", "mean_accuracy"])
    assert v is not None and 0 <= v <= 1, f"no accuracy in [0, 1]: {v}"
    return "an accuracy in [0, 1]"


def check_schema(schema: str, what: str) -> Check:
    """The output's schema is `schema` (or one of the '|'-separated names)."""
    def check(out: str, col: Column, work: str) -> str:
        j = json.loads(out)
        assert j.get("schema") in schema.split("|"), f"schema {j.get('schema')}, expected {schema}"
        return what
    return check


def check_attribution(method: str) -> Check:
    def check(out: str, col: Column, work: str) -> str:
        j = json.loads(out)
        if j.get("schema") == "saccade.seq-attribution":
            assert j["map"], "no output token"
            for row in j["map"]:
                assert distribution_ok(row) or all(x == 0 for x in row), "a token's map does not sum to 1"
            return "each output token's map over the source sums to 1"
        cells = flat(j["map"])
        assert distribution_ok(cells), f"the cell map sums to {sum(cells)}"
        if method == "integrated-gradients":
            err = j["completeness_error"]
            assert isinstance(err, (int, float)) and math.isfinite(err) and err >= 0, f"completeness error {err}"
            return "the cell map sums to 1; its completeness error measured"
        return "the cell map sums to 1"
    return check


def check_map_table(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    rows = [m["method"] for m in j["maps"]]
    assert rows, "no map"
    omitted = [o["method"] for o in j.get("omitted", [])]
    text = f"{len(rows)} maps" + (f"; left out with a reason: {', '.join(omitted)}" if omitted else "")
    return text


def check_similarity(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    assert j.get("schema") == "saccade.similarity", f"schema {j.get('schema')}"
    assert -1 - 1e-9 <= j["cosine"] <= 1 + 1e-9, f"cosine {j['cosine']}"
    for s in j["sentences"]:
        assert len(s["attribution"]) == len(s["tokens"]) > 2, "not one value per piece"
        err = s["completeness_error"]
        assert err is not None and err < 1e-2, f"completeness error {err} at 16 steps"
    return "the cosine, and each piece's share that sums to its sentence's change within 1%"


def check_report(out: str, col: Column, work: str) -> str:
    with open(os.path.join(cell_dir(work, col), "report.html"), encoding="utf-8") as f:
        html = f.read()
    assert "<h2>Model card</h2>" in html, "no model card"
    assert " on , 0 iterations" not in html, "an empty training line"
    return "an HTML report with its model card"


def check_cost(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    stages = j["rules"][0]["stages"]
    assert stages and all(s["ms_per_image"] is None or s["ms_per_image"] >= 0 for s in stages)
    return f"{len(stages)} stages timed"


def check_fidelity(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    assert j.get("sources") or j.get("rows") or j.get("variants"), "no rows"
    return "each variant's error on the model's own queries and keys"


def check_atlas(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    assert j.get("schema") == "saccade.atlas", f"schema {j.get('schema')}"
    kinds = [p["kind"] for p in j["points"]]
    assert kinds.count("query") == kinds.count("key") > 0, "not one key per query"
    assert all(math.isfinite(p["x"]) and math.isfinite(p["y"]) for p in j["points"]), "a point off the map"
    return "every query and key of the head placed, each query with the key it attends to most"


def check_atlas_cross(out: str, col: Column, work: str) -> str:
    j = json.loads(out)
    assert j.get("schema") == "saccade.atlas" and j.get("attention") == "cross", f"{j.get('schema')} {j.get('attention')}"
    queries = [p for p in j["points"] if p["kind"] == "query"]
    keys = [p for p in j["points"] if p["kind"] == "key"]
    assert queries and keys, "no queries or no keys"
    sources = {(p["input"], p["position"]) for p in keys}
    assert all((q["input"], q["attends"]) in sources for q in queries), "a query attends to a key not placed"
    assert all(math.isfinite(p["x"]) and math.isfinite(p["y"]) for p in j["points"]), "a point off the map"
    return "the decoder's queries beside the source's keys, each with the source token it attends to most"


def pytorch_reference(method: str) -> Check:
    """The map of attribute --json --pixels equals plain PyTorch's on the same file to 1e-4."""
    def check(out: str, col: Column, work: str) -> str:
        ours = json.loads(out)
        ref = subprocess.run([PYTHON, os.path.join(HERE, "gradient_reference.py"), "--model", col.model(work),
                              "--image", os.path.join(work, col.reference_image), "--target", str(ours["target"]),
                              "--method", method, "--steps", "16", "--mean", col.mean],
                             capture_output=True, text=True, check=True)
        theirs = json.loads(ref.stdout)
        a, b = flat(ours["pixels"]), flat(theirs["pixels"])
        assert len(a) == len(b), f"{len(a)} pixels against PyTorch's {len(b)}"
        scale = max(abs(v) for v in b)
        worst = max(abs(x - y) for x, y in zip(a, b)) / scale
        assert scale > 0 and worst <= 1e-4, f"relative difference {worst:.2e} from plain PyTorch"
        return "equal to plain PyTorch's on the same file (relative error <= 1e-4)"
    return check


# ---- the rows ---------------------------------------------------------------------------------

class Row:
    def __init__(self, key: str, kinds: Tuple[str, ...], args: Callable[[Column, str], List[str]], check: Check,
                 columns: Optional[Tuple[str, ...]] = None):
        self.key, self.kinds, self.args, self.check, self.only = key, kinds, args, check, columns


def m(col: Column, work: str) -> List[str]:
    return ["--model", col.model(work)]


TEXT = ["--text", "3rd of March 2021"]
IMAGE_METHODS = ["gradient", "gradient-x-input", "integrated-gradients", "smoothgrad", "occlusion", "gradcam",
                 "gradient-rollout"]
SEQ_METHODS = ["attention", "rollout", "gradient", "gradient-x-input", "integrated-gradients", "occlusion"]


def rows() -> List[Row]:
    img = ("image", "caption")
    r = [
        Row("trace", img, lambda c, w: ["trace"] + m(c, w) + c.inputs + ["--json"], check_trace),
        Row("render", img, lambda c, w: ["render"] + m(c, w) + c.inputs + ["--out", "render.png"], check_png("render.png")),
        Row("eval", img, lambda c, w: ["eval"] + m(c, w) + c.dataset + ["--limit", "4", "--json"], check_accuracy),
        Row("compare --runs", img, lambda c, w: ["compare"] + m(c, w) + c.inputs + ["--runs", "8", "--json"],
            check_schema("saccade.runset", "8 seeded runs beside the deterministic rule")),
        Row("compare --dataset", img, lambda c, w: ["compare"] + m(c, w) + c.dataset + ["--limit", "4", "--json"],
            check_schema("saccade.compare-dataset|saccade.compare-rules", "every rule on 4 test images")),
        Row("adequacy", img, lambda c, w: ["adequacy"] + m(c, w) + c.dataset + ["--limit", "4", "--shifts", "2", "--json"],
            check_schema("saccade.adequacy", "confidence, entropy and agreement on 4 images")),
        Row("sweep", img, lambda c, w: ["sweep"] + m(c, w) + (c.dataset + ["--dx", "0:3", "--dy", "0:0"] if c.exported else [])
            + ["--runs", "2", "--json"],
            check_schema("saccade.sweep|saccade.caption-sweep", "a probe moved across the model's cells")),
        Row("faithfulness", img, lambda c, w: ["faithfulness"] + m(c, w) + c.dataset + ["--limit", "3", "--json"],
            check_json_number("images", 1, 3, "attention's faithfulness on 3 test images")),
        Row("faithfulness --methods", img, lambda c, w: ["faithfulness"] + m(c, w) + c.dataset +
            ["--limit", "2", "--sanity-images", "1", "--curve-points", "4", "--methods",
             "attention,rollout," + ",".join(IMAGE_METHODS), "--json"],
            check_map_table),
        Row("adversarial", img, lambda c, w: ["adversarial"] + m(c, w) + c.inputs + ["--steps", "10", "--json"],
            check_schema("saccade.adversarial_attention", "the farthest attention that keeps the output")),
        Row("cost", ("image", "caption", "seq"), lambda c, w: ["cost"] + m(c, w) + ["--batch", "2", "--repeats", "1", "--json"],
            check_cost),
        Row("length fidelity", ("image", "caption", "seq"), lambda c, w: ["length", "fidelity"] + m(c, w) +
            ["--count", "2", "--json"], check_fidelity),
        Row("atlas", ("image", "caption", "seq"), lambda c, w: ["atlas"] + m(c, w) +
            ["--limit", "3", "--method", "pca", "--json"], check_atlas),
        Row("atlas --attention cross", ("image", "caption", "seq"), lambda c, w: ["atlas"] + m(c, w) +
            ["--attention", "cross", "--limit", "3", "--method", "pca", "--json"], check_atlas_cross),
        Row("report", img, lambda c, w: ["report"] + m(c, w) + c.dataset + ["--limit", "4", "--runs", "4", "--sweep-runs", "0", "--faithfulness-images", "2", "--cost-repeats", "1",
                                                        "--out", "report.html"],
            check_report),
    ]
    for method in IMAGE_METHODS:
        r.append(Row("attribute --method " + method, img, lambda c, w, method=method: ["attribute"] + m(c, w) + c.inputs +
                     ["--method", method, "--steps", "16", "--samples", "4", "--json"], check_attribution(method)))
    for method in ("gradient", "integrated-gradients"):
        r.append(Row("attribute --method " + method + " = PyTorch", ("image",), lambda c, w, method=method:
                     ["attribute"] + m(c, w) + ["--image", os.path.join(w, c.reference_image), "--resize",
                      "64", "--method", method, "--steps", "16",
                      "--quadrature", "gauss-legendre", "--json", "--pixels"], pytorch_reference(method),
                     columns=("import-transformer", "import-cnn")))
    r += [
        Row("translate", ("seq",), lambda c, w: ["translate"] + m(c, w) + TEXT + ["--json"],
            check_schema("saccade.seq-trace", "a translation with each token's alignment")),
        Row("eval (sequences)", ("seq",), lambda c, w: ["eval"] + m(c, w) + c.dataset + ["--limit", "4", "--json"],
            check_accuracy),
        Row("render (sequences)", ("seq",), lambda c, w: ["render"] + m(c, w) + TEXT + ["--out", "render.png"],
            check_png("render.png")),
    ]
    for method in SEQ_METHODS:
        r.append(Row("attribute --text --method " + method, ("seq",), lambda c, w, method=method: ["attribute"] + m(c, w) +
                     TEXT + ["--method", method, "--steps", "16", "--json"], check_attribution(method)))
    r.append(Row("similarity", ("seq",), lambda c, w: ["similarity"] + m(c, w) +
                 ["--text", "The cats sat on the mat.", "--text", "A dog walked in the park.", "--steps", "16", "--json"],
                 check_similarity))
    r.append(Row("faithfulness --methods (sequences)", ("seq",), lambda c, w: ["faithfulness"] + m(c, w) +
                 ["--limit", "2", "--sanity-images", "1", "--methods", ",".join(SEQ_METHODS), "--json"],
                 check_schema("saccade.seq-map-faithfulness", "every map's AER and deletion fall on 2 sentences")))
    return r


def applies(row: Row, col: Column) -> bool:
    return col.kind in row.kinds and (row.only is None or col.key in row.only)


def run_cell(cli: str, row: Row, col: Column, work: str) -> Outcome:
    rc, out, err = run(cli, row.args(col, work), cell_dir(work, col))
    if rc == 0:
        try:
            return Outcome(True, row.check(out, col, work))
        except (AssertionError, KeyError, ValueError, TypeError, IndexError) as e:
            raise AssertionError(f"{row.key} on {col.label}: exit 0 but {type(e).__name__}: {e}\n{out[-1500:]}")
    try:
        return refusal(rc, err, col, work)
    except AssertionError as e:
        raise AssertionError(f"{row.key} on {col.label}: {e}")


# ---- docs/views.md ------------------------------------------------------------------------------

HEADER = """# Which view works on which model

Every view of `saccade-cli` on every model kind: each bundled family and each form of import that
[the model contract](model-contract.md) allows. A cell either works, and the test checks one figure
of its output, or it is refused with one line that says why (the line below, exactly as the program
prints it). `tests/matrix/view_matrix.py` runs every cell on every build (one ctest per model kind,
`matrix.*`) and fails when the program and this page disagree; after a change that moves a cell,
`/usr/bin/python3 tests/matrix/view_matrix.py --cli build/app/cli/saccade-cli --work /tmp/matrix --write`
writes this page anew.

The imports: `samples/torchscript/{grid_attention,glimpse_model,sat_captioner,seq_translator,text_encoder}.pt`,
and two that `tests/matrix/export_imports.py` writes: a CNN-backbone grid model (ResNet-18 up to
layer3, a two-step attention head, soft in `forward` and hard in `forward_sampled`, `features` for
Grad-CAM, torchvision's preprocessing) and
torchvision's VisionTransformer with two register tokens (`prefix_tokens` 3, resize 72, crop 64,
ImageNet normalisation), each measured on a folder of RGB photographs of two sizes (named by
class for the first, by index for the second). The rows ending in `= PyTorch` compare the map
with plain PyTorch's autograd on the same file.

The GUI reads the same core. `tests/ui/test_views_on_every_model.cpp` opens each bundled family
and each image import of `samples/torchscript` on the Attention page and checks that the Map row
offers exactly the maps core says the model gives, greyed out with the same reason where it does
not, and draws a gradient map on every classifier that offers one. `test_map_table_panel` checks
that the Probes & cost page measures the folder open on the Attention page when a model has no
dataset of its own.

"""


def write_doc(results: Dict[str, Dict[str, Outcome]], cols: List[Column], all_rows: List[Row]) -> str:
    text = HEADER + table(results, cols, all_rows) + "\n"
    for col in cols:
        text += f"## {col.label}\n\n`{col.key}`: `{col.model_name}`\n\n"
        for row in all_rows:
            if applies(row, col) and row.key in results.get(col.key, {}):  # a new row: filled in as each column runs
                text += f"- `{row.key}`: {results[col.key][row.key].line()}\n"
        text += "\n"
    return text


def table(results: Dict[str, Dict[str, Outcome]], cols: List[Column], all_rows: List[Row]) -> str:
    out = "| view | " + " | ".join(c.label for c in cols) + " |\n|---|" + "---|" * len(cols) + "\n"
    for row in all_rows:
        cells = []
        for c in cols:
            o = results.get(c.key, {}).get(row.key)
            cells.append("" if o is None else "yes" if o.works else "no")
        if any(cells):
            out += f"| `{row.key}` | " + " | ".join(cells) + " |\n"
    return out


def read_doc() -> Dict[str, Dict[str, Outcome]]:
    results: Dict[str, Dict[str, Outcome]] = {}
    current = None
    if not os.path.exists(DOC):
        return results
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            k = re.match(r"^`([a-z-]+)`: `", line)
            if k:
                current = results.setdefault(k.group(1), {})
                continue
            cell = re.match(r"^- `([^`]+)`: (works|refused): (.*)$", line.rstrip("\n"))
            if cell and current is not None:
                current[cell.group(1)] = Outcome(cell.group(2) == "works", cell.group(3))
    return results


def same_blas_kernels(cli: str) -> None:
    """The PyTorch references run on the OpenBLAS kernels saccade-cli runs on: on a processor
    OpenBLAS does not know, saccade-cli starts again on its AVX kernels (common/runtime.h) while
    plain PyTorch stays on Prescott's, and the two round differently."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return
    out = subprocess.run([cli, "doctor", "--json"], capture_output=True, text=True)
    chosen = json.loads(out.stdout).get("blas", {}).get("OPENBLAS_CORETYPE") if out.returncode == 0 else None
    if chosen:
        os.environ["OPENBLAS_CORETYPE"] = chosen


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cli")
    p.add_argument("--work")
    p.add_argument("--column", help="one model kind's key")
    p.add_argument("--write", action="store_true", help="run every column and write docs/views.md")
    p.add_argument("--check-table", action="store_true")
    a = p.parse_args()
    all_rows = rows()
    if a.cli:
        same_blas_kernels(a.cli)
    if a.check_table:
        cols = columns("/unused")
        doc = read_doc()
        with open(DOC, encoding="utf-8") as f:
            text = f.read()
        expected = table(doc, cols, all_rows)
        if expected not in text:
            print("docs/views.md: the table does not agree with the sections below it; expected:\n" + expected)
            return 1
        print(f"docs/views.md: the table agrees with its {sum(len(v) for v in doc.values())} cells")
        return 0
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    if not os.path.exists(os.path.join(work, "cnn_grid.pt")):
        subprocess.run([PYTHON, os.path.join(HERE, "export_imports.py"), "--out", work], check=True)
    cols = [c for c in columns(work) if (a.write and not a.column) or c.key == a.column]
    if not cols:
        print(f"no model kind '{a.column}'")
        return 2
    results: Dict[str, Dict[str, Outcome]] = {}
    failures = []
    for col in cols:
        results[col.key] = {}
        for row in all_rows:
            if not applies(row, col):
                continue
            started = time.monotonic()
            try:
                results[col.key][row.key] = run_cell(a.cli, row, col, work)
            except (AssertionError, subprocess.SubprocessError) as e:
                failures.append(str(e))
                print("FAIL " + str(e), flush=True)
                results[col.key][row.key] = Outcome(False, "FAILED")
            print(f"{col.key:20s} {row.key:45s} {time.monotonic() - started:5.1f} s  {results[col.key][row.key].line()}",
                  flush=True)
    if a.write:  # with --column, that kind's cells anew and the others as the page has them
        everything = read_doc() if a.column else {}
        everything.update(results)
        text = write_doc(everything, columns(work), all_rows)  # whole before the page is opened for writing
        with open(DOC + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(DOC + ".tmp", DOC)
    else:
        doc = read_doc().get(a.column, {})
        for key, got in results[a.column].items():
            want = doc.get(key)
            if want is None or want.line() != got.line():
                failures.append(f"{key}: docs/views.md says '{want.line() if want else 'nothing'}', "
                                f"the program: '{got.line()}'")
        for key in doc:
            if key not in results[a.column]:
                failures.append(f"{key}: in docs/views.md but no longer a view of {a.column}")
    for f in failures:
        print("FAIL " + f)
    cells = sum(len(v) for v in results.values())
    print(f"{cells - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
