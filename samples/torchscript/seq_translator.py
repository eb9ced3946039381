"""A character-level nn.Transformer translator in plain PyTorch, exported with torch.jit.script for
Saccade's translator contract (docs/model-contract.md, "Translators").

It learns Saccade's `dates` task (a date as people write it -> ISO 8601) from a pairs file that
saccade-cli writes. Re-create the bundled file (one CPU thread, seed 1, about 4 minutes):

    saccade-cli data pairs --task dates --split train --count 20000 --out /tmp/dates-train.tsv
    /usr/bin/python3 samples/torchscript/seq_translator.py --train /tmp/dates-train.tsv --seed 1 \\
        --steps 2500 --out samples/torchscript/seq_translator.pt

and evaluate it on the test split Saccade's own models are measured on, with gold alignments:

    saccade-cli data pairs --task dates --split test --count 2000 --out /tmp/dates-test.tsv
    saccade-cli eval --model samples/torchscript/seq_translator.pt --pairs /tmp/dates-test.tsv

Training uses torch's nn.Transformer as it is (its fast path, which returns no attention
weights). The exported module runs the very same layers one by one, calling each
nn.MultiheadAttention with need_weights=True and average_attn_weights=False, so every layer's and
head's weights come out; the script checks that this path gives nn.Transformer's own output.

translate(source, max_len) decodes greedily and returns `tokens` [N, T] (int64, </s> last),
`cross_attentions` [N, layers, heads, T, S] and `self_attentions` [N, layers, heads, S, S] (the
encoder's). align(source, target) returns the cross-attention of the decoder fed `target`
(teacher forcing), which Saccade uses for the alignment error rate. The module carries
`source_vocabulary`, `target_vocabulary`, `end_token` and `unknown_token`.
"""

import argparse
import time
from typing import Dict, List, Tuple

import torch
from torch import Tensor, nn

PAD, START, END, UNKNOWN = 0, 1, 2, 1  # target: <pad> <s> </s>; source: <pad> <unk>


def read_pairs(path: str) -> List[Tuple[str, str]]:
    pairs = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            pairs.append((fields[0], fields[1]))
    return pairs


class Translator(nn.Module):
    source_vocabulary: List[str]
    target_vocabulary: List[str]
    end_token: int
    unknown_token: int
    start_token: int

    def __init__(self, source_vocabulary: List[str], target_vocabulary: List[str], dim: int = 64, heads: int = 4,
                 layers: int = 2, ff: int = 128, max_positions: int = 256):
        super().__init__()
        self.source_vocabulary = source_vocabulary
        self.target_vocabulary = target_vocabulary
        self.end_token = END
        self.unknown_token = UNKNOWN
        self.start_token = START
        self.heads = heads
        self.source_embedding = nn.Embedding(len(source_vocabulary), dim)
        self.target_embedding = nn.Embedding(len(target_vocabulary), dim)
        self.source_position = nn.Embedding(max_positions, dim)
        self.target_position = nn.Embedding(max_positions, dim)
        self.transformer = nn.Transformer(d_model=dim, nhead=heads, num_encoder_layers=layers,
                                          num_decoder_layers=layers, dim_feedforward=ff, dropout=0.0,
                                          batch_first=True)
        self.out = nn.Linear(dim, len(target_vocabulary))

    def embed_source(self, source: Tensor) -> Tensor:
        positions = torch.arange(source.size(1), device=source.device)
        return self.source_embedding(source) + self.source_position(positions)

    def embed_target(self, target: Tensor) -> Tensor:
        positions = torch.arange(target.size(1), device=target.device)
        return self.target_embedding(target) + self.target_position(positions)

    @torch.jit.unused
    def training_logits(self, source: Tensor, decoder_input: Tensor) -> Tensor:
        """nn.Transformer's own forward (training and the export check)."""
        causal = self.transformer.generate_square_subsequent_mask(decoder_input.size(1))
        hidden = self.transformer(self.embed_source(source), self.embed_target(decoder_input), tgt_mask=causal,
                                  src_key_padding_mask=source == PAD, memory_key_padding_mask=source == PAD)
        return self.out(hidden)

    def encode(self, source: Tensor) -> Tuple[Tensor, Tensor]:
        """Memory [N, S, D] and each layer's self-attention [N, L, H, S, S]."""
        x = self.embed_source(source)
        weights: List[Tensor] = []
        for layer in self.transformer.encoder.layers:
            a, w = layer.self_attn(x, x, x, need_weights=True, average_attn_weights=False)
            assert w is not None
            weights.append(w)
            x = layer.norm1(x + a)
            x = layer.norm2(x + layer.linear2(layer.activation(layer.linear1(x))))
        x = self.transformer.encoder.norm(x)
        return x, torch.stack(weights, 1)

    def decode(self, decoder_input: Tensor, memory: Tensor) -> Tuple[Tensor, Tensor]:
        """Logits [N, T, V] and each layer's cross-attention [N, L, H, T, S]."""
        x = self.embed_target(decoder_input)
        T = decoder_input.size(1)
        causal = torch.triu(torch.full((T, T), float("-inf"), device=x.device), diagonal=1)
        weights: List[Tensor] = []
        for layer in self.transformer.decoder.layers:
            a, _ = layer.self_attn(x, x, x, attn_mask=causal, need_weights=False)
            x = layer.norm1(x + a)
            c, w = layer.multihead_attn(x, memory, memory, need_weights=True, average_attn_weights=False)
            assert w is not None
            weights.append(w)
            x = layer.norm2(x + c)
            x = layer.norm3(x + layer.linear2(layer.activation(layer.linear1(x))))
        x = self.transformer.decoder.norm(x)
        return self.out(x), torch.stack(weights, 1)

    def forward(self, source: Tensor, decoder_input: Tensor) -> Tensor:
        memory, _ = self.encode(source)
        logits, _ = self.decode(decoder_input, memory)
        return logits

    @torch.jit.export
    def translate(self, source: Tensor, max_len: int) -> Dict[str, Tensor]:
        memory, self_attentions = self.encode(source)
        ys = torch.full((source.size(0), 1), self.start_token, dtype=torch.long, device=source.device)
        for _ in range(max_len):
            logits, _ = self.decode(ys, memory)
            following = logits[:, -1].argmax(-1, keepdim=True)
            ys = torch.cat([ys, following], 1)
            if bool((ys == self.end_token).any(1).all()):
                break
        _, cross = self.decode(ys[:, :-1], memory)
        return {"tokens": ys[:, 1:], "cross_attentions": cross, "self_attentions": self_attentions}

    @torch.jit.export
    def align(self, source: Tensor, target: Tensor) -> Dict[str, Tensor]:
        memory, _ = self.encode(source)
        start = torch.full((target.size(0), 1), self.start_token, dtype=torch.long, device=source.device)
        _, cross = self.decode(torch.cat([start, target[:, :-1]], 1), memory)
        return {"cross_attentions": cross}


def batches(pairs, source_ids, target_ids, batch, generator):
    order = torch.randperm(len(pairs), generator=generator).tolist()
    for first in range(0, len(order) - batch + 1, batch):
        chosen = [pairs[i] for i in order[first:first + batch]]
        S = max(len(s) for s, _ in chosen)
        T = max(len(t) for _, t in chosen) + 1
        source = torch.full((batch, S), PAD, dtype=torch.long)
        decoder_input = torch.full((batch, T), PAD, dtype=torch.long)
        wanted = torch.full((batch, T), PAD, dtype=torch.long)
        for b, (s, t) in enumerate(chosen):
            source[b, :len(s)] = torch.tensor([source_ids.get(c, UNKNOWN) for c in s])
            ids = [target_ids[c] for c in t]
            decoder_input[b, :len(ids) + 1] = torch.tensor([START] + ids)
            wanted[b, :len(ids) + 1] = torch.tensor(ids + [END])
        yield source, decoder_input, wanted


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", required=True, help="pairs file (saccade-cli data pairs --split train)")
    parser.add_argument("--steps", type=int, default=2500, help="training batches (0: untrained)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    pairs = read_pairs(args.train)
    source_vocabulary = ["<pad>", "<unk>"] + sorted({c for s, _ in pairs for c in s})
    target_vocabulary = ["<pad>", "<s>", "</s>"] + sorted({c for _, t in pairs for c in t})
    source_ids = {c: i for i, c in enumerate(source_vocabulary)}
    target_ids = {c: i for i, c in enumerate(target_vocabulary)}
    model = Translator(source_vocabulary, target_vocabulary)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(args.seed)
    step, start = 0, time.time()
    while step < args.steps:
        for source, decoder_input, wanted in batches(pairs, source_ids, target_ids, args.batch, generator):
            if step >= args.steps:
                break
            logits = model.training_logits(source, decoder_input)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), wanted.flatten(), ignore_index=PAD)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            step += 1
            if step % 250 == 0:
                print(f"step {step}: loss {loss.item():.4f} ({time.time() - start:.0f} s)", flush=True)
    model.eval()
    with torch.no_grad():  # the layer-by-layer path is nn.Transformer's own
        source, decoder_input, _ = next(batches(pairs[:8], source_ids, target_ids, 1, generator))
        expected = model.training_logits(source, decoder_input)
        assert torch.allclose(model(source, decoder_input), expected, atol=1e-4), "the exported path differs"
    scripted = torch.jit.script(model)
    scripted.save(args.out)
    print(f"wrote {args.out}: {len(source_vocabulary)} source and {len(target_vocabulary)} target tokens, "
          f"{args.steps} steps, seed {args.seed}")


if __name__ == "__main__":
    main()
