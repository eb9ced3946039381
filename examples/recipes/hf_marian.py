"""transformers' MarianMTModel (tiny config) in Saccade's translator contract (`translate`, `align`).

    python examples/recipes/hf_marian.py --out OUT --seed 1

A character-level vocabulary (<pad>, </s>, <unk>, space, digits, lower-case letters, a few signs),
shared by source and target as Marian shares it; 2 encoder and 2 decoder layers, 4 heads, width
64; random weights under --seed (nothing is downloaded). transformers' models cannot be scripted
and a greedy loop cannot be traced, so the exported module holds the model's own layers (the very
Linear, LayerNorm and Embedding modules, so the same weights) and runs Marian's post-norm layers
one by one in TorchScript, forming each attention's weights itself. The recipe checks this path
against MarianMTModel's own logits and cross-attentions (output_attentions=True,
attn_implementation="eager") to 1e-4 before it writes anything.

The encoder reads the source followed by </s>, as Marian's tokenizer writes it. Saccade sends the
source without it and wants distributions over the tokens it sent, so the </s> column is dropped
from every attention row and the row renormalised (as Saccade drops a ViT's prefix tokens).
translate() decodes greedily from <pad> (Marian's decoder start) until every row has written </s>
or max_len tokens; the untrained model rarely writes </s>, so its output is max_len tokens long.
Writes OUT/hf_marian.pt and OUT/hf_marian.reference.json (the text, PyTorch's output tokens and the
last layer's mean cross-attention, for compare.py).
"""

import json
from typing import Dict, List, Optional, Tuple

import torch
from torch import Tensor, nn
from transformers import MarianConfig, MarianMTModel

import _common as rc

VOCABULARY = ["<pad>", "</s>", "<unk>"] + list(" 0123456789abcdefghijklmnopqrstuvwxyz-,.'")
PAD, END, UNKNOWN = 0, 1, 2
TEXT = "3rd of march 2021"


class Attention(nn.Module):
    """MarianAttention's projections, returning its weights [N, heads, T, S] too."""

    def __init__(self, a: nn.Module):
        super().__init__()
        self.q, self.k, self.v, self.o = a.q_proj, a.k_proj, a.v_proj, a.out_proj
        self.heads, self.head_dim, self.scaling = a.num_heads, a.head_dim, float(a.scaling)

    def forward(self, x: Tensor, memory: Tensor, mask: Optional[Tensor]) -> Tuple[Tensor, Tensor]:
        n, t, s = x.shape[0], x.shape[1], memory.shape[1]
        q = self.q(x).view(n, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(memory).view(n, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(memory).view(n, s, self.heads, self.head_dim).transpose(1, 2)
        w = torch.matmul(q, k.transpose(2, 3)) * self.scaling
        if mask is not None:
            w = w + mask
        w = torch.softmax(w, -1)
        return self.o(torch.matmul(w, v).transpose(1, 2).reshape(n, t, -1)), w


class EncoderLayer(nn.Module):
    def __init__(self, layer: nn.Module):
        super().__init__()
        self.attn, self.ln1 = Attention(layer.self_attn), layer.self_attn_layer_norm
        self.fc1, self.fc2, self.act, self.ln2 = layer.fc1, layer.fc2, layer.activation_fn, layer.final_layer_norm

    def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
        a, w = self.attn(x, x, None)
        x = self.ln1(x + a)
        return self.ln2(x + self.fc2(self.act(self.fc1(x)))), w


class DecoderLayer(nn.Module):
    def __init__(self, layer: nn.Module):
        super().__init__()
        self.self_attn, self.ln1 = Attention(layer.self_attn), layer.self_attn_layer_norm
        self.cross, self.ln2 = Attention(layer.encoder_attn), layer.encoder_attn_layer_norm
        self.fc1, self.fc2, self.act, self.ln3 = layer.fc1, layer.fc2, layer.activation_fn, layer.final_layer_norm

    def forward(self, y: Tensor, memory: Tensor, causal: Tensor) -> Tuple[Tensor, Tensor]:
        a, _ = self.self_attn(y, y, causal)
        y = self.ln1(y + a)
        c, w = self.cross(y, memory, None)
        y = self.ln2(y + c)
        return self.ln3(y + self.fc2(self.act(self.fc1(y)))), w


def drop_end(w: Tensor) -> Tensor:
    """Attention rows over source + </s> -> over the source only, renormalised."""
    w = w[..., :-1]
    return w / w.sum(-1, keepdim=True)


class MarianInContract(nn.Module):
    source_vocabulary: List[str]
    target_vocabulary: List[str]
    end_token: int
    unknown_token: int

    def __init__(self, mt: MarianMTModel):
        super().__init__()
        self.source_vocabulary = VOCABULARY
        self.target_vocabulary = VOCABULARY
        self.end_token = END
        self.unknown_token = UNKNOWN
        self.start_token = mt.config.decoder_start_token_id
        encoder, decoder = mt.model.encoder, mt.model.decoder
        self.source_embedding, self.target_embedding = encoder.embed_tokens, decoder.embed_tokens
        # The sinusoidal tables as buffers (their module's forward takes a torch.Size, which TorchScript cannot type)
        self.register_buffer("source_positions", encoder.embed_positions.weight.detach().clone())
        self.register_buffer("target_positions", decoder.embed_positions.weight.detach().clone())
        self.source_scale, self.target_scale = float(encoder.embed_scale), float(decoder.embed_scale)
        self.encoder = nn.ModuleList([EncoderLayer(layer) for layer in encoder.layers])
        self.decoder = nn.ModuleList([DecoderLayer(layer) for layer in decoder.layers])
        self.lm_head = mt.lm_head
        self.register_buffer("final_logits_bias", mt.final_logits_bias.clone())

    def encode(self, source: Tensor) -> Tuple[Tensor, Tensor]:
        """source [N, S] without </s> -> memory [N, S + 1, dim], self-attentions [N, layers, heads, S+1, S+1]."""
        end = torch.full([source.shape[0], 1], self.end_token, dtype=torch.long, device=source.device)
        ids = torch.cat([source, end], 1)
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.source_embedding(ids) * self.source_scale + self.source_positions[positions]
        weights: List[Tensor] = []
        for layer in self.encoder:
            x, w = layer(x)
            weights.append(w)
        return x, torch.stack(weights, 1)

    def decode(self, decoder_input: Tensor, memory: Tensor) -> Tuple[Tensor, Tensor]:
        """decoder_input [N, T] (start token first) -> logits [N, T, V], cross-attentions [N, layers, heads, T, S+1]."""
        t = decoder_input.shape[1]
        positions = torch.arange(t, device=decoder_input.device)
        y = self.target_embedding(decoder_input) * self.target_scale + self.target_positions[positions]
        causal = torch.triu(torch.full((t, t), float("-inf"), device=y.device), diagonal=1)
        weights: List[Tensor] = []
        for layer in self.decoder:
            y, w = layer(y, memory, causal)
            weights.append(w)
        return self.lm_head(y) + self.final_logits_bias, torch.stack(weights, 1)

    @torch.jit.export
    def translate(self, source: Tensor, max_len: int) -> Dict[str, Tensor]:
        memory, self_weights = self.encode(source)
        ys = torch.full([source.shape[0], 1], self.start_token, dtype=torch.long, device=source.device)
        for _ in range(max_len):
            logits, _ = self.decode(ys, memory)
            ys = torch.cat([ys, logits[:, -1].argmax(-1, keepdim=True)], 1)
            if bool((ys[:, 1:] == self.end_token).any(1).all()):
                break
        _, cross = self.decode(ys[:, :-1], memory)
        return {"tokens": ys[:, 1:], "cross_attentions": drop_end(cross),
                "self_attentions": drop_end(self_weights[:, :, :, :-1])}

    @torch.jit.export
    def align(self, source: Tensor, target: Tensor) -> Dict[str, Tensor]:
        memory, _ = self.encode(source)
        start = torch.full([target.shape[0], 1], self.start_token, dtype=torch.long, device=target.device)
        _, cross = self.decode(torch.cat([start, target], 1), memory)
        return {"cross_attentions": drop_end(cross[:, :, :, 1:])}

    def forward(self, source: Tensor) -> Dict[str, Tensor]:
        return self.translate(source, 20)


def main() -> None:
    a = rc.arguments(__doc__, "hf_marian")
    config = MarianConfig(vocab_size=len(VOCABULARY), decoder_vocab_size=len(VOCABULARY), d_model=64,
                          encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                          encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=256,
                          pad_token_id=PAD, eos_token_id=END, decoder_start_token_id=PAD,
                          attn_implementation="eager")
    mt = MarianMTModel(config).eval()
    module = MarianInContract(mt).eval()
    torch.jit.save(torch.jit.script(module), a.path + ".pt")
    loaded = torch.jit.load(a.path + ".pt").eval()

    source = torch.tensor([[VOCABULARY.index(c) for c in TEXT]])
    max_len = min(2 * source.shape[1] + 10, 200)  # what Saccade asks for
    with torch.no_grad():
        out = loaded.translate(source, max_len)
        tokens = out["tokens"]
        # The same greedy decoding with MarianMTModel's own forward, and its own cross-attentions.
        ids = torch.cat([source, torch.tensor([[END]])], 1)
        ys = torch.tensor([[PAD]])
        for _ in range(tokens.shape[1]):
            hf = mt(input_ids=ids, decoder_input_ids=ys, output_attentions=True, return_dict=True)
            ys = torch.cat([ys, hf.logits[:, -1].argmax(-1, keepdim=True)], 1)
        ours_logits, ours_cross = loaded.decode(ys[:, :-1], loaded.encode(source)[0])
    if not torch.equal(ys[:, 1:], tokens):
        raise SystemExit(f"{a.path}.pt: its greedy output differs from MarianMTModel's")
    hf_cross = torch.stack(hf.cross_attentions, 1)  # the last forward read ys[:, :-1]: every step's
    for name, x, y in (("logits", ours_logits, hf.logits), ("cross-attentions", ours_cross, hf_cross)):
        difference = float((x - y).abs().max() / y.abs().max())
        if difference > rc.TOLERANCE:
            raise SystemExit(f"{a.path}.pt: its {name} differ from MarianMTModel's by {difference:.2e} (relative)")
    words = [VOCABULARY[i] for i in tokens[0].tolist()]
    if END in tokens[0].tolist():
        words = words[:tokens[0].tolist().index(END) + 1]
    alignment = out["cross_attentions"][0, -1].mean(0)[:len(words)]  # the last layer's mean over heads
    reference = {"kind": "translator", "text": TEXT, "tokens": words, "alignment": alignment.double().tolist(),
                 "torch": torch.__version__}
    with open(a.path + ".reference.json", "w", encoding="utf-8") as f:
        json.dump(reference, f, indent=1)
    print(f"wrote {a.path}.pt and .reference.json: {TEXT!r} -> {''.join(words)!r}")


if __name__ == "__main__":
    main()
