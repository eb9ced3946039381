"""Writes hostile TorchScript imports for tests/cli/hostile_imports.sh (Debian's python3-torch):
each breaks one limit of docs/model-contract.md, or brings text that cannot be shown as it is.

Usage: /usr/bin/python3 hostile_imports.py OUT_DIR
"""
import sys
from typing import Dict, List

import torch
from torch import Tensor, nn

VOCAB = ["<start>", "<end>", "a", "red", "circle"]


class Captioner(nn.Module):
    """caption(image, max_len): `words` tokens (max_len * factor) over an h x w grid."""

    def __init__(self, vocabulary: List[str], factor: int, side: int, message: str):
        super().__init__()
        self.vocabulary = vocabulary
        self.end_token = 1
        self.input_size = [3, 32, 32]
        self.factor = factor
        self.side = side
        self.message = message

    @torch.jit.export
    def caption(self, image: Tensor, max_len: int) -> Dict[str, Tensor]:
        if self.message != "":
            raise ValueError(self.message)
        n = image.size(0)
        t = max_len * self.factor
        tokens = torch.full((n, t), 2, dtype=torch.long)
        attention = torch.full((n, t, self.side, self.side), 1.0 / (self.side * self.side))
        return {"tokens": tokens, "attention": attention}

    def forward(self, image: Tensor) -> Tensor:
        return image


class Translator(nn.Module):
    """translate(source, max_len): `extra` tokens more than asked for."""

    def __init__(self, target: List[str], extra: int):
        super().__init__()
        self.source_vocabulary = ["<pad>", "<unk>", "a", "b", "c"]
        self.target_vocabulary = target
        self.end_token = 1
        self.unknown_token = 1
        self.extra = extra

    @torch.jit.export
    def translate(self, source: Tensor, max_len: int) -> Dict[str, Tensor]:
        t = max_len + self.extra
        s = source.size(1)
        tokens = torch.full((source.size(0), t), 2, dtype=torch.long)
        cross = torch.full((source.size(0), 1, 1, t, s), 1.0 / s)
        return {"tokens": tokens, "cross_attentions": cross}

    def forward(self, source: Tensor) -> Tensor:
        return source


class Encoder(nn.Module):
    """encode(source) under the text-encoder contract, broken as `flaw` says: "" (none), "rows"
    (attention rows that do not sum to 1), "shape" (an embedding without its batch axis), "tokenizer"
    (an unknown tokenizer), "nan" (a NaN embedding), or "pieces" (sound: text typed as pieces)."""

    def __init__(self, flaw: str):
        super().__init__()
        self.vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "##c"]
        self.tokenizer = "sentencepiece" if flaw == "tokenizer" else "pieces" if flaw == "pieces" else "wordpiece"
        self.lower_case = True
        self.flaw = flaw

    @torch.jit.export
    def encode(self, source: Tensor) -> Dict[str, Tensor]:
        n, s = source.size(0), source.size(1)
        weight = 2.0 / s if self.flaw == "rows" else 1.0 / s
        embedding = torch.ones(n, 4)
        if self.flaw == "shape":
            embedding = torch.ones(4)
        if self.flaw == "nan":
            embedding = embedding * float("nan")
        return {"embedding": embedding, "self_attentions": torch.full((n, 1, 2, s, s), weight)}

    def forward(self, source: Tensor) -> Tensor:
        return source


class HalfEncoder(Encoder):
    """A sound encoder with embed but no encode_embedded: attribution cannot run."""

    @torch.jit.export
    def embed(self, source: Tensor) -> Tensor:
        return torch.ones(source.size(0), source.size(1), 4)


class RowsEncoder(nn.Module):
    """A sound text encoder with embed and encode_embedded, over a vocabulary without [PAD];
    `off` makes encode_embedded answer another embedding than encode (twice it)."""

    def __init__(self, off: bool):
        super().__init__()
        self.vocabulary = ["[UNK]", "[CLS]", "[SEP]", "a", "b", "##c"]
        self.tokenizer = "wordpiece"
        self.lower_case = True
        self.off = off
        self.table = nn.Embedding(6, 4)

    @torch.jit.export
    def embed(self, source: Tensor) -> Tensor:
        return self.table(source)

    @torch.jit.export
    def encode_embedded(self, embedded: Tensor) -> Dict[str, Tensor]:
        n, s = embedded.size(0), embedded.size(1)
        sentence = torch.tanh(embedded).mean(1)
        if self.off:
            sentence = sentence * 2.0
        return {"embedding": sentence, "self_attentions": torch.full((n, 1, 1, s, s), 1.0 / s)}

    @torch.jit.export
    def encode(self, source: Tensor) -> Dict[str, Tensor]:
        out = self.encode_embedded(self.embed(source))
        embedding = out["embedding"] / 2.0 if self.off else out["embedding"]
        return {"embedding": embedding, "self_attentions": out["self_attentions"]}

    def forward(self, source: Tensor) -> Tensor:
        return source


class HelperNamedEncode(nn.Module):
    """An image classifier whose forward calls a helper named encode: still a classifier."""

    def __init__(self):
        super().__init__()
        self.class_names = ["zero", "one"]
        self.input_size = [1, 32, 32]

    def encode(self, image: Tensor) -> Tensor:
        return image.mean(1, keepdim=True)

    def forward(self, image: Tensor) -> Dict[str, Tensor]:
        n = image.size(0)
        logits = torch.cat([self.encode(image).flatten(1).mean(1, keepdim=True), torch.zeros(n, 1)], 1)
        return {"logits": logits, "attention": torch.full((n, 1, 4, 4), 1.0 / 16)}


class Grid(nn.Module):
    """A grid classifier whose attention has `side` cells a side."""

    def __init__(self, side: int):
        super().__init__()
        self.class_names = ["zero", "one"]
        self.input_size = [1, 32, 32]
        self.side = side

    def forward(self, image: Tensor) -> Dict[str, Tensor]:
        n = image.size(0)
        logits = torch.zeros(n, 2)
        attention = torch.full((n, 1, self.side, self.side), 1.0 / (self.side * self.side))
        return {"logits": logits, "attention": attention}


def save(module: nn.Module, path: str) -> None:
    torch.jit.save(torch.jit.script(module), path)


def main() -> None:
    out = sys.argv[1]
    save(Captioner(VOCAB, 1, 4, ""), f"{out}/fine_captioner.pt")
    save(Captioner(VOCAB[:4] + ["\x1b[2J\x1b[31mred"], 1, 4, ""), f"{out}/esc_vocabulary.pt")
    save(Captioner(VOCAB[:4] + ["x" * 1_000_000], 1, 4, ""), f"{out}/huge_word.pt")
    save(Captioner(VOCAB, 1000, 4, ""), f"{out}/long_caption.pt")
    save(Captioner(VOCAB, 1, 3000, ""), f"{out}/huge_grid_captioner.pt")
    save(Captioner(VOCAB, 1, 4, "bad \x1b[31mred\x1b[0m \u202eevil"), f"{out}/raising.pt")
    save(Captioner(VOCAB, 1, 4, "first line\nsecond line\u2028third"), f"{out}/two_lines.pt")
    save(Translator(["<pad>", "<end>", "x", "y"], 32000), f"{out}/long_translation.pt")
    save(Translator(["<pad>", "<end>", "x", "\u202ey"], 0), f"{out}/rlo_vocabulary.pt")
    save(Grid(3000), f"{out}/huge_grid.pt")
    for flaw in ("rows", "shape", "tokenizer", "nan", "pieces"):
        save(Encoder(flaw), f"{out}/encoder_{flaw}.pt")
    save(HalfEncoder(""), f"{out}/encoder_half.pt")
    torch.manual_seed(1)
    save(RowsEncoder(False), f"{out}/encoder_nopad.pt")
    save(RowsEncoder(True), f"{out}/encoder_off.pt")
    save(HelperNamedEncode(), f"{out}/helper_encode.pt")


if __name__ == "__main__":
    main()
