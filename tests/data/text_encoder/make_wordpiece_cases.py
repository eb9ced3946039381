"""Writes wordpiece_cases.json beside it: what transformers' pure-Python BERT tokenizer (BasicTokenizer
then WordpieceTokenizer; BertTokenizerLegacy in transformers 5, BertTokenizer before) makes of a
few texts over samples/torchscript/text_encoder.py's TINY_VOCABULARY, lower-casing, so that
Saccade's WordPiece tokenizer (core/data/wordpiece.cpp) can be tested against BERT's own rules.

  ~/.cache/saccade-ecosystem/venv/bin/python tests/data/text_encoder/make_wordpiece_cases.py

Each case is {"text", "about", "pieces"}, pieces without [CLS] and [SEP]. Where the tokenizers
library's BertTokenizer (Rust) cuts a text otherwise, the case says so in "fast_pieces"; the
pure-Python pieces are the reference. The file is ASCII (json escapes); "about" says what a text
holds.
"""

import json
import os
import sys
import tempfile

import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "samples", "torchscript"))
from text_encoder import TINY_VOCABULARY  # noqa: E402

try:
    from transformers import BertTokenizerLegacy as SlowBertTokenizer  # transformers 5
except ImportError:
    from transformers import BertTokenizer as SlowBertTokenizer  # transformers 4: the pure-Python one

CASES = [
    ("the cat sat on the mat", "plain words"),
    ("cats", "a ## continuation"),
    ("playing", "a ## continuation"),
    ("walked", "a ## continuation"),
    ("unhappy", "un ##happy: no longer piece starts the word"),
    ("redo", "greedy longest match: red, then no ##o, so the whole word is [UNK] (re ##do would cover it)"),
    ("sunny", "three pieces"),
    ("zebra", "no piece covers the word"),
    ("catz", "the match fails mid-way: cat, then no ##z, so the whole word is [UNK], not cat [UNK]"),
    ("dog,cat!", "punctuation glued to words"),
    ("cat's", "an apostrophe splits; a lone s is not a word piece"),
    ("re-do", "a hyphen splits"),
    ("cat^dog $5 `a`", "ASCII symbols count as punctuation"),
    ("The CAT", "upper case"),
    ("Caf\u00e9 na\u00efve CAF\u00c9 NA\u00cfVE", "accents, lower and upper case (precomposed)"),
    ("cafe\u0301", "an accent as a combining mark (decomposed)"),
    ("\u0301cat", "a combining mark with nothing before it"),
    ("\u0130N", "dotted capital I: lower-cased to i and a combining dot, the dot stripped"),
    ("the\tcat\n\nsat   on\r\nthe  mat ", "tabs, newlines, carriage return, several spaces"),
    ("the\u00a0cat\u3000sat\u2009on", "no-break, ideographic and thin spaces (Zs)"),
    ("cat\u2028dog\u2029run", "line and paragraph separators split words"),
    ("cat\x00s the\x07cat", "control characters are dropped, joining what they separated"),
    ("cat\x0bdog cat\x85s", "vertical tab and NEL are control characters here, dropped, not spaces"),
    ("cat\u00ads \ufeffthe ca\u200dt", "format characters (soft hyphen, BOM, zero-width joiner) are dropped"),
    ("cat\ue000s", "a private-use character (Co) is dropped"),
    ("cat\uffffs cat\u0378s", "unassigned code points (Cn; U+FFFF, U+0378) are dropped too (not by the Rust one)"),
    ("the \u732b cat\u72d7dog", "CJK ideographs: each its own word"),
    ("\u306d\u3053 \ud55c\uad6d", "kana and Hangul are not set apart"),
    ("\u201ccat\u201d dog\u2014cat \u00bfrun?", "Unicode punctuation: curly quotes, em dash, inverted question mark"),
    ("\u20ac5 cat\u00a9", "currency and other symbols (S*) are not punctuation"),
    ("\uff43\uff41\uff54", "full-width letters are not folded"),
    ("2 cats", "digits"),
    ("", "the empty text"),
    (" \t\n ", "only whitespace"),
    ("cat" + "s" * 97, "a word of 100 characters: cut into pieces"),
    ("cat" + "s" * 98, "a word of 101 characters: [UNK] though pieces would cover it"),
    ("CAT" + "S" * 97, "100 characters, upper case"),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        vocab_file = os.path.join(folder, "vocab.txt")
        with open(vocab_file, "w", encoding="utf-8") as f:
            f.write("".join(piece + "\n" for piece in TINY_VOCABULARY))
        slow = SlowBertTokenizer(vocab_file, do_lower_case=True)
        try:  # the tokenizers library's (Rust), for comparison only
            fast = transformers.BertTokenizerFast(vocab_file, do_lower_case=True)
        except Exception as e:
            print(f"no fast tokenizer to compare with: {e}", file=sys.stderr)
            fast = None
        cases = []
        for text, about in CASES:
            case = {"text": text, "about": about, "pieces": slow.tokenize(text)}
            if fast is not None and fast.tokenize(text) != case["pieces"]:
                case["fast_pieces"] = fast.tokenize(text)
                print(f"the fast tokenizer differs on {text!r}: {case['fast_pieces']} against {case['pieces']}")
            cases.append(case)
    out = {"note": f"Written by tests/data/text_encoder/make_wordpiece_cases.py with transformers "
                   f"{transformers.__version__}'s {SlowBertTokenizer.__name__} (pure Python) over TINY_VOCABULARY, "
                   f"do_lower_case=True; pieces without [CLS] and [SEP].",
           "vocabulary": list(TINY_VOCABULARY), "lower_case": True, "cases": cases}
    path = os.path.join(HERE, "wordpiece_cases.json")
    with open(path, "w", encoding="ascii") as f:
        json.dump(out, f, indent=1, ensure_ascii=True)
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases")


if __name__ == "__main__":
    main()
