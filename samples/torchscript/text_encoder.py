"""A text encoder under Saccade's contract (docs/model-contract.md, "Text encoders"): a BERT-style
encoder (post-LayerNorm layers, exact GELU, mean pooling over every token, L2-normalised) written
in plain PyTorch so that it scripts on PyTorch 1.13 and 2.x alike.

  encode(source)            ids [N, S] -> {"embedding": [N, E], "self_attentions": [N, L, H, S, S]}
  embed(source)             ids [N, S] -> the word-embedding rows [N, S, D] the encoder reads
  encode_embedded(rows)     rows [N, S, D] -> what encode gives, from rows in place of embed(source)'s
  vocabulary: List[str]     the word pieces, id order
  tokenizer: str            "wordpiece" (BERT's rules) or "pieces" (the text is pieces already)
  lower_case: bool          WordPiece: lower-case and strip accents first
  max_pieces: int           the most pieces it reads (its positions)

Run as a program it writes the bundled sample `text_encoder.pt`: a tiny encoder with random
weights (seed 1) over a 53-piece vocabulary, so its maps show the contract, not language. The
recipe examples/recipes/minilm_text_encoder.py loads all-MiniLM-L6-v2's real weights into the same
class. Re-create the sample (Debian's python3-torch):

  /usr/bin/python3 samples/torchscript/text_encoder.py --seed 1 --out samples/torchscript/text_encoder.pt
"""

import argparse
import math
from typing import Dict, List

import torch
from torch import nn
from torch.nn import functional as F


class EncoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int, hidden: int, eps: float):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.attention_out = nn.Linear(dim, dim)
        self.attention_norm = nn.LayerNorm(dim, eps=eps)
        self.intermediate = nn.Linear(dim, hidden)
        self.output = nn.Linear(hidden, dim)
        self.output_norm = nn.LayerNorm(dim, eps=eps)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        n, s, d = x.shape
        return x.view(n, s, self.heads, d // self.heads).transpose(1, 2)  # [N, H, S, dh]

    def forward(self, x: torch.Tensor):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.size(-1))
        weights = torch.softmax(scores, dim=-1)  # [N, H, S, S]
        context = torch.matmul(weights, v).transpose(1, 2).reshape(x.shape)
        x = self.attention_norm(x + self.attention_out(context))
        x = self.output_norm(x + self.output(F.gelu(self.intermediate(x))))
        return x, weights


class TextEncoder(nn.Module):
    vocabulary: List[str]
    tokenizer: str
    lower_case: bool
    max_pieces: int

    def __init__(self, vocabulary: List[str], layers: int, heads: int, dim: int, hidden: int, positions: int,
                 eps: float = 1e-12, tokenizer: str = "wordpiece", lower_case: bool = True):
        super().__init__()
        self.vocabulary = vocabulary
        self.tokenizer = tokenizer
        self.lower_case = lower_case
        self.max_pieces = positions
        self.word = nn.Embedding(len(vocabulary), dim)
        self.position = nn.Embedding(positions, dim)
        self.token_type = nn.Embedding(2, dim)
        self.embedding_norm = nn.LayerNorm(dim, eps=eps)
        self.layers = nn.ModuleList([EncoderLayer(dim, heads, hidden, eps) for _ in range(layers)])

    @torch.jit.export
    def embed(self, source: torch.Tensor) -> torch.Tensor:
        return self.word(source)

    @torch.jit.export
    def encode_embedded(self, embedded: torch.Tensor) -> Dict[str, torch.Tensor]:
        positions = torch.arange(embedded.size(1), device=embedded.device)
        x = self.embedding_norm(embedded + self.position(positions).unsqueeze(0) + self.token_type.weight[0])
        attentions: List[torch.Tensor] = []
        for layer in self.layers:
            x, weights = layer(x)
            attentions.append(weights)
        sentence = F.normalize(x.mean(1), p=2.0, dim=-1)  # mean pooling (one unpadded sentence per row)
        return {"embedding": sentence, "self_attentions": torch.stack(attentions, 1)}

    @torch.jit.export
    def encode(self, source: torch.Tensor) -> Dict[str, torch.Tensor]:
        return self.encode_embedded(self.embed(source))

    def forward(self, source: torch.Tensor) -> torch.Tensor:
        return self.encode(source)["embedding"]


def load_bert(encoder: TextEncoder, state: Dict[str, torch.Tensor], prefix: str = "") -> None:
    """Copies a Hugging Face BertModel's state dict (names as transformers writes them) into `encoder`."""
    def take(name: str) -> torch.Tensor:
        return state[prefix + name]

    with torch.no_grad():
        encoder.word.weight.copy_(take("embeddings.word_embeddings.weight"))
        encoder.position.weight.copy_(take("embeddings.position_embeddings.weight"))
        encoder.token_type.weight.copy_(take("embeddings.token_type_embeddings.weight"))
        encoder.embedding_norm.weight.copy_(take("embeddings.LayerNorm.weight"))
        encoder.embedding_norm.bias.copy_(take("embeddings.LayerNorm.bias"))
        for i, layer in enumerate(encoder.layers):
            p = f"encoder.layer.{i}."
            pairs = [(layer.query, "attention.self.query"), (layer.key, "attention.self.key"),
                     (layer.value, "attention.self.value"), (layer.attention_out, "attention.output.dense"),
                     (layer.attention_norm, "attention.output.LayerNorm"), (layer.intermediate, "intermediate.dense"),
                     (layer.output, "output.dense"), (layer.output_norm, "output.LayerNorm")]
            for module, name in pairs:
                module.weight.copy_(take(p + name + ".weight"))
                module.bias.copy_(take(p + name + ".bias"))


TINY_VOCABULARY = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", ".", ",", "!", "?", "'"] +
                   "the a cat dog sat on mat play run walk park house red blue small big and is was in to "
                   "of sun rain day night good bad".split() +
                   ["##s", "##ing", "##ed", "##er", "##ly", "##y", "un", "##happy", "happy", "re", "##do", "do",
                    "cafe", "naive", "##n", "##t"])


def tiny(seed: int) -> TextEncoder:
    torch.manual_seed(seed)
    encoder = TextEncoder(list(TINY_VOCABULARY), layers=2, heads=4, dim=32, hidden=64, positions=64)
    with torch.no_grad():
        for p in encoder.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, std=0.3)
    return encoder.eval()


def main() -> None:
    p = argparse.ArgumentParser(description="Writes the tiny text encoder sample (random weights under a seed).")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="text_encoder.pt")
    a = p.parse_args()
    torch.jit.script(tiny(a.seed)).save(a.out)
    print(f"wrote {a.out}: {len(TINY_VOCABULARY)} pieces, 2 layers x 4 heads, seed {a.seed}")


if __name__ == "__main__":
    main()
