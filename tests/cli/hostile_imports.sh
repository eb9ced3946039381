#!/usr/bin/env bash
# Hostile imports (tests/cli/hostile_imports.py writes them with Debian's python3-torch): every one
# is refused when it is opened or first called, with one line that names the limit it broke, and
# nothing a model brings (its vocabulary, its own error text) reaches the terminal raw.
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
/usr/bin/python3 -c 'import torch' 2> /dev/null || fail "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)"
/usr/bin/python3 "$here/hostile_imports.py" "$dir" > "$dir/export.log" 2>&1 || { cat "$dir/export.log"; fail "export"; }
cd "$dir"
# refused NAME EXPECTED COMMAND...: exit 2, one line on stderr holding EXPECTED, nothing on stdout,
# no ESC byte and no U+202E in either.
refused() {
  local name=$1 want=$2; shift 2
  timeout 120 "$cli" "$@" > "$name.out" 2> "$name.err"
  local rc=$?
  [ "$rc" -eq 2 ] || { cat "$name.err"; fail "$name: exit $rc, not 2"; }
  [ "$(wc -l < "$name.err")" -eq 1 ] || { cat "$name.err"; fail "$name: not one line"; }
  grep -qF -- "$want" "$name.err" || { cat "$name.err"; fail "$name: no '$want'"; }
  [ ! -s "$name.out" ] || fail "$name: wrote to stdout"
  ! grep -q $'\x1b' "$name.err" || fail "$name: an ESC reached the terminal"
  ! grep -q $'\u202e' "$name.err" || fail "$name: U+202E reached the terminal"
  echo "refused $name: $(cat "$name.err")"
}
"$cli" trace --model fine_captioner.pt --sample scenes64:0 > fine.json || fail "the well-behaved captioner does not trace"
grep -q '"token": "a"' fine.json || fail "the well-behaved captioner's words are missing"
refused esc_vocabulary "its vocabulary entry 4 holds the control character U+001B at byte 0" \
  trace --model esc_vocabulary.pt --sample scenes64:0
refused huge_word "its vocabulary entry 4 is 1000000 bytes long (at most 200)" trace --model huge_word.pt --sample scenes64:0
refused long_caption "caption answered 20000 words when asked for at most max_len = 20" \
  trace --model long_caption.pt --sample scenes64:0
refused huge_grid_captioner "grid is 3000x3000; Saccade shows grids of at most 256 cells a side" \
  trace --model huge_grid_captioner.pt --sample scenes64:0
refused huge_grid "has a 3000x3000 grid; Saccade shows grids of at most 256 cells a side" \
  trace --model huge_grid.pt --sample translated-fashion60:0
refused raising 'caption failed: ValueError: bad \x1B[31mred\x1B[0m \u202Eevil' trace --model raising.pt --sample scenes64:0
refused long_translation "translate answered 32012 tokens when asked for at most max_len = 12" \
  translate --model long_translation.pt --text abc
refused rlo_vocabulary "its target_vocabulary entry 3 holds the direction override U+202E at byte 0" \
  translate --model rlo_vocabulary.pt --text abc
refused two_lines 'caption failed: ValueError: first line' trace --model two_lines.pt --sample scenes64:0
grep -q "second" two_lines.err && fail "two_lines: more than the exception's first line"
refused encoder_rows "encode's 'self_attentions': a row sums to 2, not 1" translate --model encoder_rows.pt --text "a b"
refused encoder_shape "encode's 'embedding' must be floating point [N, E] with N = 1, not Float [4]" \
  translate --model encoder_shape.pt --text "a b"
refused encoder_tokenizer "its tokenizer is 'sentencepiece'; Saccade reads \"wordpiece\"" \
  translate --model encoder_tokenizer.pt --text "a b"
refused encoder_nan "encode's 'embedding' holds NaN or inf" translate --model encoder_nan.pt --text "a b"
refused encoder_half "it has embed but no encode_embedded; attribution needs both" \
  similarity --model encoder_half.pt --text "a b" --text "a"
refused encoder_empty "the first sentence: nothing to encode: the text holds no pieces" \
  similarity --model "$here/../../samples/torchscript/text_encoder.pt" --text " " --text "a"
# The sound one: text typed as pieces, an entry outside the vocabulary read as [UNK] and named.
"$cli" translate --model encoder_pieces.pt --text "a ##c zz" > pieces.out 2>&1 || { cat pieces.out; fail "encoder_pieces"; }
grep -qF "pieces : 5 ([CLS] a ##c [UNK] [SEP])" pieces.out || { cat pieces.out; fail "encoder_pieces: not its pieces"; }
grep -qF "unknown: 'zz'" pieces.out || { cat pieces.out; fail "encoder_pieces: 'zz' not named"; }
refused encoder_off "embed then encode_embedded gives another embedding than encode" \
  translate --model encoder_off.pt --text "a b"
refused encoder_nopad "vocabulary has no padding piece" similarity --model encoder_nopad.pt --text "a b" --text "a"
"$cli" similarity --model encoder_nopad.pt --text "a b" --text "a" --baseline zero --json > nopad.json ||
  fail "encoder_nopad: no similarity from zero rows"
grep -q '"baseline": "zero"' nopad.json || fail "encoder_nopad: not from zero rows"
"$cli" similarity --model encoder_nopad.pt --text "a b" --text "a" --baseline auto --json > auto.json ||
  fail "encoder_nopad: no similarity under --baseline auto"
grep -q '"baseline": "zero"' auto.json || fail "encoder_nopad: auto did not fall back to zero rows"
# A classifier whose forward calls a helper named encode is a classifier, not a text encoder.
"$cli" trace --model helper_encode.pt --sample translated-fashion60:0 --json > helper.json 2> helper.err ||
  { cat helper.err; fail "helper_encode: not traced as a classifier"; }
echo "hostile imports: all 17 refused"
