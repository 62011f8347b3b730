#!/bin/bash
# The DSA definitions on the cpu device, on a TraceSet of small workloads (num_pages is a var
# axis: a few dozen pages instead of 11923 and 8462): scripts/gen_dsa_blobs writes their blobs,
# the same bytes twice, and regenerates the shipped blobs byte for byte; the runner makes the
# top-k's quantized K cache (no NaN codes, positive scales) and dumps it; the plain C baselines
# pass (the top-k one writes its set in position order, the reference in score order: the check
# compares scores, not indices); planted top-k candidates are caught with their reason: a sign
# error that keeps the lowest 2048 scores (only where a row has more than 2048 tokens), a
# repeated index, a dropped one. (The check's cases one by one: tests/unit/test_dsa_topk.)
. "$top_srcdir/tests/lib.sh"

TK=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
SA=dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
GEN="$top_builddir/scripts/gen_dsa_blobs"
TKDIR="$top_srcdir/kernels/$TK/cpu/baseline"

# topk_line UUID B P N, attn_line UUID T N: workload lines whose index inputs are blobs.
topk_line() {
    local blob="blob/workloads/dsa_paged/$TK/$1.safetensors"
    printf '{"definition": "%s", "solution": null, "workload": {"uuid": "%s", "axes": {"batch_size": %d, "max_num_pages": %d, "num_pages": %d}, "inputs": {"seq_lens": {"type": "safetensors", "path": "%s", "tensor_key": "seq_lens"}, "block_table": {"type": "safetensors", "path": "%s", "tensor_key": "block_table"}}}, "evaluation": null}\n' \
        "$TK" "$1" "$2" "$3" "$4" "$blob" "$blob"
}
attn_line() {
    printf '{"definition": "%s", "solution": null, "workload": {"uuid": "%s", "axes": {"num_tokens": %d, "num_pages": %d}, "inputs": {"sparse_indices": {"type": "safetensors", "path": "./blob/workloads/dsa_paged/%s/%s.safetensors", "tensor_key": "sparse_indices"}, "sm_scale": {"type": "scalar", "value": 0.1352337788608801}}}, "evaluation": null}\n' \
        "$SA" "$1" "$2" "$3" "$SA" "$1"
}

mkdir -p "$TMP/ds/definitions" "$TMP/ds/workloads"
cp "$KWB_DATASET/definitions/dsa_paged/$TK.json" "$KWB_DATASET/definitions/dsa_paged/$SA.json" "$TMP/ds/definitions/"
{ topk_line tk-p1 1 1 4; topk_line tk-p3 2 3 8; topk_line tk-p33 2 33 70; } >"$TMP/ds/workloads/$TK.jsonl"
{ attn_line sa-t1 1 8; attn_line sa-t2 2 70; } >"$TMP/ds/workloads/$SA.jsonl"

# The generator: the blobs the lines name, the same bytes on a second run.
"$GEN" "$TMP/ds" >"$TMP/gen.out" 2>&1
expect_code 0 "$?" "gen_dsa_blobs on the small TraceSet"
expect_grep "^$TK: 3 blob file\\(s\\)" "$TMP/gen.out" "three top-k blobs"
expect_grep "^$SA: 2 blob file\\(s\\)" "$TMP/gen.out" "two attention blobs"
cp -r "$TMP/ds/blob" "$TMP/blob.first"
"$GEN" "$TMP/ds" >/dev/null 2>&1
diff -r "$TMP/blob.first" "$TMP/ds/blob" >/dev/null && pass "same bytes on a second run" || fail "a second run differs"
topk_line tk-bad 2 5 9 >>"$TMP/ds/workloads/$TK.jsonl"   # 10 pages needed, 9 in the cache
"$GEN" "$TMP/ds" $TK >"$TMP/bad.out" 2>&1
expect_code 1 "$?" "pages that cannot be distinct"
expect_grep "workload tk-bad: batch_size 2 \\* max_num_pages 5 pages do not fit in num_pages 9" "$TMP/bad.out" \
    "the refusal names the workload"
sed -i '/tk-bad/d' "$TMP/ds/workloads/$TK.jsonl"

# The shipped blobs are what the rules give.
mkdir -p "$TMP/ship/definitions" "$TMP/ship/workloads"
cp "$KWB_DATASET/definitions/dsa_paged/"*.json "$TMP/ship/definitions/"
cp "$KWB_DATASET/workloads/dsa_paged/"*.jsonl "$TMP/ship/workloads/"
"$GEN" "$TMP/ship" >/dev/null 2>&1
expect_code 0 "$?" "regenerating the shipped blobs"
diff -r "$KWB_DATASET/blob/workloads/dsa_paged" "$TMP/ship/blob/workloads/dsa_paged" >"$TMP/ship.diff" 2>&1 &&
    pass "shipped blobs regenerate byte for byte" || fail "shipped blobs differ: $(head -3 "$TMP/ship.diff")"

# The generated K cache, as kwb dump writes the trial's inputs.
"$KWB" dump --definition $TK --dataset "$TMP/ds" --workloads tk-p1 --out "$TMP/dump" >/dev/null 2>"$TMP/dump.err"
expect_code 0 "$?" "dump of a top-k workload"
python_free_check() {   # the page's 64 scales: finite and positive; no NaN code among 8192
    local f=$TMP/dump/tk-p1.safetensors n h off
    n=$(od -An -t u8 -N 8 "$f" | tr -d ' ')
    h=$(tail -c +9 "$f" | head -c "$n")
    off=$(printf '%s' "$h" | grep -o '"in.k_index_cache_fp8":{[^}]*}' | grep -o '"data_offsets":\[[0-9]*' | grep -o '[0-9]*$')
    [ -n "$off" ] || return 1
    tail -c +$((9 + n + off)) "$f" | head -c 8192 | od -An -v -t x1 | tr ' ' '\n' | grep -cE '^(7f|ff)$' >"$TMP/nan"
    tail -c +$((9 + n + off + 8192)) "$f" | head -c 256 | od -An -v -t f4 | tr ' ' '\n' | grep . >"$TMP/scales"
    [ "$(cat "$TMP/nan")" -eq 0 ] && [ "$(wc -l <"$TMP/scales")" -eq 64 ] &&
        awk '!($1 > 0 && $1 < 1) { bad = 1 } END { exit bad }' "$TMP/scales"
}
python_free_check && pass "K cache: no NaN code, 64 scales in (0, 1) on page 0" || fail "K cache page 0 looks wrong"

# The C baselines.
"$KWB" eval --dataset "$TMP/ds" --definition $TK --solution "$TKDIR" --max-time 0.05 --quiet >"$TMP/tk.out" 2>&1
expect_code 0 "$?" "top-k cpu baseline"
expect_grep '^3 workloads: 3 PASSED' "$TMP/tk.out" "top-k: 3 PASSED"
"$KWB" eval --dataset "$TMP/ds" --definition $SA --solution "$top_srcdir/kernels/$SA/cpu/baseline" --max-time 0.05 \
    --quiet >"$TMP/sa.out" 2>&1
expect_code 0 "$?" "attention cpu baseline"
expect_grep '^2 workloads: 2 PASSED' "$TMP/sa.out" "attention: 2 PASSED"

# Another reference than the definition's own (--reference DIR here; torch on a GPU box) that
# brings only the top-k itself: the check the definition chooses and the K cache it declares made
# by the reference come from the definition's own (built as the reference's helpers). Without
# them the check could not run (the runner refuses a chosen check the reference lacks).
cp -r "$top_srcdir/kernels/$TK/reference/cpu" "$TMP/bare"
printf '#include "topk_scores.c"\n' >"$TMP/bare/host.c"
sed -i 's/"name": "[^"]*"/"name": "dsa_topk_bare_reference"/' "$TMP/bare/solution.json"
"$KWB" eval --dataset "$TMP/ds" --definition $TK --solution "$TKDIR" --reference "$TMP/bare" --max-time 0.01 \
    --trials 1 --quiet >"$TMP/bare.out" 2>&1
expect_code 0 "$?" "a reference without the definition's check and generator, helped by its own"
expect_grep '^3 workloads: 3 PASSED' "$TMP/bare.out" "helped: 3 PASSED"
mkdir -p "$TMP/k2" && cp -r "$top_srcdir/kernels/$TK" "$top_srcdir/kernels/include" "$TMP/k2/"
rm -r "$TMP/k2/$TK/reference" # the headers the bare reference includes, not the definition's own reference
KWB_KERNELS="$TMP/k2" "$KWB" eval --dataset "$TMP/ds" --definition $TK --solution "$TKDIR" \
    --reference "$TMP/bare" --max-time 0.01 --trials 1 --quiet >"$TMP/unhelped.out" 2>&1
expect_code 2 "$?" "without the definition's own reference to help: refused"
expect_grep "the definition's own reference, for its declared code" "$TMP/unhelped.out" "unhelped: the reason"

# planted NAME SED: the top-k baseline with SED applied, as solution NAME.
planted() {
    mkdir -p "$TMP/$1"
    sed "$2" "$TKDIR/dsa_topk_baseline.c" >"$TMP/$1/dsa_topk_baseline.c"
    cmp -s "$TKDIR/dsa_topk_baseline.c" "$TMP/$1/dsa_topk_baseline.c" && fail "$1: the sed did not apply"
    sed "s/\"dsa_topk_cpu_baseline\"/\"dsa_topk_cpu_$1\"/" "$TKDIR/solution.json" >"$TMP/$1/solution.json"
    "$KWB" eval --dataset "$TMP/ds" --definition $TK --solution "$TMP/$1" --trials 1 --max-time 0.01 --quiet \
        >"$TMP/$1.out" 2>&1
}
planted lowest 's/? token_score(/? -token_score(/'
expect_code 1 "$?" "keeping the lowest scores fails"
expect_grep '^tk-p33 .*INCORRECT_NUMERICAL' "$TMP/lowest.out" "where rows have more than 2048 tokens"
expect_grep '^3 workloads: 2 PASSED 1 INCORRECT_NUMERICAL' "$TMP/lowest.out" "rows of at most 2048 tokens still pass"
expect_grep 'misses a token that scores clearly higher' "$TMP/lowest.out" "the reason is named"
planted repeat 's/^    free(score);$/    if (batch > 0 \&\& out[1] >= 0) out[0] = out[1];\n    free(score);/'
expect_code 1 "$?" "a repeated index fails"
expect_grep 'row 0: index [0-9]+ appears twice' "$TMP/repeat.out" "named as such"
planted drop 's/^    free(score);$/    if (batch > 0) out[0] = -1;\n    free(score);/'
expect_code 1 "$?" "a dropped index fails"
expect_grep 'row 0: [0-9]+ indices where the reference chose' "$TMP/drop.out" "named as such"
finish
