#!/bin/bash
# Inputs and checks by declaration, no rebuild of kwb: a definition of kwb's tests
# (tests/fixtures/declared) declares in its "kwb" member generators for its integer inputs
# (offsets that split x, a permutation of page ids, picks in a range over the axes) and
# "check": {"order": "any"} for its top-k indices. A candidate listing the top-k in another order
# passes against the C reference; without the order declaration it fails; without the input
# declarations the random integers are no valid offsets and the reference refuses them (the
# preflight, before any candidate); bad
# declarations are refused with FILE:LINE.
. "$top_srcdir/tests/lib.sh"

FX="$top_srcdir/tests/fixtures/declared"
D=kwb_test_segments
ev() { # NAME DATASET: eval the candidate against the reference, 3 trials
    "$KWB" eval --dataset "$2" --definition $D --solution "$FX/solutions/candidate" --reference "$FX/solutions/reference" \
        --trials 3 --max-time 0.01 --quiet >"$TMP/$1.out" 2>"$TMP/$1.err"
    echo $?
}
variant() { # NAME PYTHON-EXPR-ON-d: a copy of the dataset with the definition changed
    mkdir -p "$TMP/$1/definitions" && cp -r "$FX/workloads" "$TMP/$1/"
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"), indent=1)' \
        "$FX/definitions/$D.json" "$2" "$TMP/$1/definitions/$D.json"
}

code=$(ev decl "$FX")
expect_code 0 "$code" "declared inputs and order: the candidate passes"
expect_grep '^2 workloads: 2 PASSED' "$TMP/decl.out" "both workloads"

# Rows are compared as multisets where the outputs lie (the device's row comparison; the cpu
# device runs it in place), nothing read back when they are the reference's; a candidate with
# one index wrong is sent on to the host's check, which says where.
"$KWB" eval --dataset "$FX" --definition $D --solution "$FX/solutions/candidate" --reference "$FX/solutions/reference" \
    --trials 3 --max-time 0.01 --quiet --json >"$TMP/rows.json" 2>"$TMP/rows.err"
[ "$(jq '[.workloads[].cost.device_compares] | add' "$TMP/rows.json")" -gt 0 ] &&
    pass "rows in any order compared on the device" || fail "device compares: $(jq -c '[.workloads[].cost]' "$TMP/rows.json")"
mkdir -p "$TMP/wrong" && cp -r "$FX/solutions/candidate/." "$TMP/wrong/"
sed -i 's|^        for (; n < 4; n++)|        if (s == 1 \&\& n > 0)\n            top[s * 4] = -7;\n        for (; n < 4; n++)|' "$TMP/wrong/segments.c"
grep -q 'top\[s \* 4\] = -7' "$TMP/wrong/segments.c" || fail "the wrong candidate was not made"
"$KWB" eval --dataset "$FX" --definition $D --solution "$TMP/wrong" --reference "$FX/solutions/reference" \
    --trials 3 --max-time 0.01 --quiet >"$TMP/wrong.out" 2>"$TMP/wrong.err"
expect_code 1 "$?" "one index wrong in a row"
expect_grep "^ +output 'top': [0-9]+ of [0-9]+ elements outside" "$TMP/wrong.out" "the host's check names the output"

variant ordered 'del d["kwb"]["check"]'
code=$(ev ordered "$TMP/ordered")
expect_code 1 "$code" "element-wise order"
expect_grep '^seg-3 .* INCORRECT_NUMERICAL' "$TMP/ordered.out" "the same indices in another order fail element by element"

variant random 'del d["kwb"]["inputs"]'
code=$(ev random "$TMP/random")
expect_code 2 "$code" "no input declarations"
expect_grep "the reference of .*$D.json fails on it, alone, before any candidate ran.*reference returned -1" "$TMP/random.err" \
    "random integers are no valid offsets: the reference refuses them before any candidate runs"

# The generators' values: offsets from 0 to total, never decreasing; a permutation; picks in range.
"$KWB" dump --dataset "$FX" --definition $D --workloads seg-3 --reference "$FX/solutions/reference" --out "$TMP/dump" \
    >/dev/null 2>&1
expect_code 0 "$?" "dump of the declared inputs"
python3 - "$TMP/dump/seg-3.safetensors" >"$TMP/values" 2>&1 <<'PY'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
hdr = json.loads(raw[8:8 + n])
def get(name, fmt, size):
    t = hdr[name]
    a, b = t["data_offsets"]
    body = raw[8 + n + a:8 + n + b]
    return list(struct.unpack("<%d%s" % (len(body) // size, fmt), body))
off, perm, pick = get("in.offsets", "i", 4), get("in.perm", "i", 4), get("in.pick", "q", 8)
ok = off[0] == 0 and off[-1] == 50 and all(x <= y for x, y in zip(off, off[1:]))
ok = ok and sorted(perm) == list(range(64)) and perm != list(range(64)) and all(0 <= p < 64 for p in pick)
print("ok" if ok else "bad: %s %s %s" % (off, perm, pick))
PY
expect_grep '^ok$' "$TMP/values" "offsets split 0..total, perm is a shuffled permutation, picks in range"

# The cost model's values from the inputs: the reference's kwb_cost_values is given host copies
# of the inputs the definition's cost "reads" names, NULL data for the others (a MoE's weights
# stay on the device). This one refuses unless it sees perm and not x, and counts perm's pages.
mkdir -p "$TMP/costref" && cp -r "$FX/solutions/reference/." "$TMP/costref/"
cat >>"$TMP/costref/segments.c" <<'C'

int kwb_cost_values(const kwb_arg *in, int nin, const char *const *names, int n, int64_t *values)
{
    (void)names;
    if (nin != 4 || n != 1 || in[0].data || !in[2].data)
        return -1;
    const int32_t *perm = in[2].data;
    int64_t pages = 0;
    for (int64_t i = 0; i < in[2].shape[0]; i++)
        pages += perm[i] >= 0 && perm[i] < in[2].shape[0];
    values[0] = pages;
    return 0;
}
C
cost_flops() { # NAME: the eval's FLOPs of its first row (its FLOP rate times its median), "none" without
    "$KWB" eval --dataset "$TMP/$1" --definition $D --solution "$FX/solutions/candidate" --reference "$TMP/costref" \
        --trials 1 --max-time 0.01 --quiet --json >"$TMP/$1.json" 2>"$TMP/$1.err"
    jq -r '.workloads[0] | if .tflops then (.tflops * 1e9 * .latency.median_ms | round) else "none" end' "$TMP/$1.json"
}
variant cost_reads 'd["kwb"]["cost"] = {"from_inputs": ["pages"], "reads": ["perm"], "flops": "pages * 1000"}'
[ "$(cost_flops cost_reads)" = 64000 ] && pass "cost reads perm alone: its values computed (64 pages, 64000 FLOPs)" ||
    fail "cost reads: flops $(cost_flops cost_reads); $(tail -3 "$TMP/cost_reads.err")"
variant cost_all 'd["kwb"]["cost"] = {"from_inputs": ["pages"], "flops": "pages * 1000"}'
[ "$(cost_flops cost_all)" = none ] && pass "without reads every input comes (this function then refuses)" ||
    fail "cost without reads: flops $(cost_flops cost_all)"

# Bad declarations: exit 2, FILE:LINE, the problem named.
bad() { # NAME PYTHON WANT
    variant "$1" "$2"
    "$KWB" eval --dataset "$TMP/$1" --definition $D --solution "$FX/solutions/candidate" >"$TMP/$1.out" 2>"$TMP/$1.err"
    expect_code 2 "$?" "$1: refused"
    expect_grep "$3" "$TMP/$1.err" "$1: named"
}
bad float_input 'd["kwb"]["inputs"]["x"] = {"range": [0, 1]}' "$D.json:[0-9]+: kwb inputs: 'x' is not an integer tensor input"
bad unknown_axis 'd["kwb"]["inputs"]["pick"] = {"range": [0, "pages - 1"]}' "$D.json:[0-9]+: .*pages"
bad two_kinds 'd["kwb"]["inputs"]["pick"] = {"range": [0, 1], "permutation": True}' "give one of range, offsets, permutation"
bad bad_order 'd["kwb"]["check"]["order"] = "sorted"' "kwb check 'order' must be \"any\" or \"exact\""
bad cost_reads_output 'd["kwb"]["cost"] = {"reads": ["sums"]}' "$D.json:[0-9]+: kwb cost 'reads' entry 0 must name one of the definition's inputs"
finish
