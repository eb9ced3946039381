"""A small Show-Attend-Tell captioner (Xu et al. 2015) in plain PyTorch, exported with
torch.jit.script for Saccade's captioner contract (docs/model-contract.md, "Captioners").

Re-create the bundled file (untrained: random weights under the seed, nothing is trained here):

    /usr/bin/python3 samples/torchscript/sat_captioner.py --seed 1 --out samples/torchscript/sat_captioner.pt

The encoder turns a 64x64 RGB image into an 8x8 grid of 64-d annotations; an LSTM decoder with
additive attention reads one soft-attended context per word and greedily picks the next word from
Saccade's scene vocabulary (that of scenes64, so `--sample scenes64:N` opens with references).
`caption(image, max_len)` returns `tokens` [N, T] (int64) and `attention` [N, T, 8, 8]; the
module carries `vocabulary`, `end_token` and `input_size`.
"""

import argparse
from typing import Dict, List

import torch
from torch import nn

# sceneVocabulary() of core/data/procedural_scenes.cpp: ids 0..3 are <start>, <end>, <pad>, <unk>.
VOCABULARY = ["<start>", "<end>", "<pad>", "<unk>", "a", "small", "large",
              "red", "green", "blue", "yellow", "white", "purple",
              "circle", "square", "triangle", "cross",
              "left", "right", "of", "above", "below", "which", "is"]


class SatCaptioner(nn.Module):
    vocabulary: List[str]
    end_token: int
    start_token: int
    input_size: List[int]

    def __init__(self, dim: int = 64, hidden: int = 96, embed: int = 32):
        super().__init__()
        self.vocabulary = list(VOCABULARY)
        self.end_token = 1
        self.start_token = 0
        self.input_size = [3, 64, 64]
        self.hidden = hidden
        self.encoder = nn.Sequential(                      # 64 -> 32 -> 16 -> 8
            nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 48, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(48, dim, 3, stride=2, padding=1), nn.ReLU())
        self.embed = nn.Embedding(len(VOCABULARY), embed)
        self.init_h = nn.Linear(dim, hidden)
        self.init_c = nn.Linear(dim, hidden)
        self.att_feat = nn.Linear(dim, hidden)             # additive (Bahdanau) attention
        self.att_hid = nn.Linear(hidden, hidden)
        self.att_out = nn.Linear(hidden, 1)
        self.lstm = nn.LSTMCell(embed + dim, hidden)
        self.words = nn.Linear(hidden + dim, len(VOCABULARY))

    @torch.jit.export
    def caption(self, image: torch.Tensor, max_len: int) -> Dict[str, torch.Tensor]:
        f = self.encoder(image)                            # [N, dim, 8, 8]
        n, d, gh, gw = f.shape
        a_in = f.flatten(2).transpose(1, 2)                # [N, 64 cells, dim]
        mean = a_in.mean(1)
        h = torch.tanh(self.init_h(mean))
        c = torch.tanh(self.init_c(mean))
        keys = self.att_feat(a_in)
        word = torch.full([n], self.start_token, dtype=torch.long, device=image.device)
        tokens: List[torch.Tensor] = []
        maps: List[torch.Tensor] = []
        for _ in range(max_len):
            e = self.att_out(torch.tanh(keys + self.att_hid(h).unsqueeze(1))).squeeze(2)
            alpha = torch.softmax(e, -1)                   # [N, cells]
            z = (alpha.unsqueeze(2) * a_in).sum(1)
            h, c = self.lstm(torch.cat([self.embed(word), z], 1), (h, c))
            logits = self.words(torch.cat([h, z], 1))
            logits[:, self.start_token] = -1e9             # never <start>, <pad>, <unk>
            logits[:, 2] = -1e9
            logits[:, 3] = -1e9
            word = logits.argmax(-1)
            tokens.append(word)
            maps.append(alpha.view(n, gh, gw))
        return {"tokens": torch.stack(tokens, 1), "attention": torch.stack(maps, 1)}

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.caption(image, 12)["tokens"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="sat_captioner.pt")
    args = p.parse_args()
    torch.manual_seed(args.seed)
    model = SatCaptioner().eval()
    scripted = torch.jit.script(model)
    out = scripted.caption(torch.rand(2, 3, 64, 64), 12)
    assert out["tokens"].dtype == torch.int64 and out["attention"].shape == (2, 12, 8, 8)
    torch.jit.save(scripted, args.out)
    words = [VOCABULARY[int(t)] for t in out["tokens"][0]]
    print(f"wrote {args.out}: untrained (seed {args.seed}), first caption of a random image: {' '.join(words)}")


if __name__ == "__main__":
    main()
