#!/usr/bin/python3
"""The arithmetic floor of the decoding benchmarks: the multiply-adds that any implementation of
the reference's model must do (what cannot be shared or looked up), at the reference scripts'
default sizes, and the time they take at a measured peak. A target of R times the reference can
be met only where the reference takes at least R times that floor.

  scripts/flop-floor.py --peak 86.7     # GFLOP/s: `saccade-cli --threads 1 doctor --matmul-size 1024`

Counted as essential (what an implementation that knows every trick still computes):
- products of a row with a weight matrix: a multiply-add per weight;
- attention over L keys of width D: L*A (additive scores, A the scorer's width), L*D (dot scores)
  and L*D (the context), per row;
- an embedding's product with the first gate matrix is left out: a table of vocab rows can hold it.
Left out as free: nonlinearities, softmax, sampling, argmax, the embedding tables.
Standard library only; prints one table, or JSON with --json.
"""
import argparse
import json

p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
p.add_argument('--peak', type=float, required=True, help='GFLOP/s of one thread (doctor --matmul-size 1024)')
p.add_argument('--json', action='store_true')
a = p.parse_args()


def captions():
    # ../shared/bench/sat_reference.py --bench captions: 1,000 captions of one image, grid 8 (L = 64),
    # encoder width D = 128, embedding 64, LSTM H = 256, attention A = 128, vocabulary 32,
    # 15 word steps. Every caption starts from the same state, so step 0's attention is one row and
    # its LSTM at most L distinct rows (one per sampled cell); from step 1 on the rows differ.
    L, D, H, A, V, N, T = 64, 128, 256, 128, 32, 1000, 15
    attention = H * A + L * A               # the query's projection and the scores (the chosen cell is gathered)
    gate = H * D                            # the beta gate
    lstm = (D + H) * 4 * H                  # the context and the state into the gates
    out = H * V
    macs = (T - 1) * N * (attention + gate + lstm + out) + (attention + gate) + L * (lstm + out)
    return {'workload': '1,000 stochastic captions (sat_reference.py)', 'macs': macs}


def translations(scorer):
    # ../shared/bench/seq2seq_reference.py --bench translate: 1,000 sentences of 24 source tokens,
    # embedding 64, bidirectional GRU of 128 a direction (keys of 256), decoder GRUCell of 256,
    # attention width 128, 48 target words, 11 decoder steps.
    S, E, Hd, K, A, V, N, T = 24, 64, 128, 256, 128, 48, 1000, 11
    encoder = 2 * S * Hd * 3 * Hd           # the recurrent products of both directions
    bridge = K * K
    keys = {'additive': S * K * A, 'general': 0, 'dot': 0, 'scaled-dot': 0}[scorer]
    query = {'additive': K * A, 'general': K * K, 'dot': 0, 'scaled-dot': 0}[scorer]  # general: Wg^T q
    scores = {'additive': S * A, 'general': S * K, 'dot': S * K, 'scaled-dot': S * K}[scorer]
    step = query + scores + S * K + K * 3 * K + K * 3 * K + 2 * K * V  # context, GRU input and state, output
    macs = N * (encoder + bridge + keys + T * step)
    return {'workload': '1,000 greedy translations, ' + scorer + ' (seq2seq_reference.py)', 'macs': macs}


rows = [captions()] + [translations(s) for s in ('additive', 'general', 'dot', 'scaled-dot')]
for r in rows:
    r['gflop'] = 2 * r['macs'] / 1e9
    r['floor_ms'] = r['gflop'] / a.peak * 1000
if a.json:
    print(json.dumps({'peak_gflops': a.peak, 'workloads': rows}))
else:
    print(f"floor at {a.peak:.1f} GFLOP/s, one thread")
    print(f"{'workload':<62} {'GFLOP':>7} {'floor ms':>9}")
    for r in rows:
        print(f"{r['workload']:<62} {r['gflop']:>7.2f} {r['floor_ms']:>9.1f}")
