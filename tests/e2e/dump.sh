#!/bin/bash
# kwb dump on the cpu device: one safetensors file per selected workload with the trial's
# inputs (in.NAME, the scalar as a 0-dim tensor) and the reference's outputs (out.NAME), its
# metadata, sizes that add up; the same bytes twice, other bytes for another trial or seed;
# a definition given by path; and the refusals: an unknown workload or definition, bad
# options, an out folder that cannot be written, a workload whose input cannot be made (the
# others are still dumped, nothing half-written is left). (That the tensors equal the
# runner's inputs and the reference's outputs bit for bit is tests/unit/test_dump.)
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1 3

# header FILE: the JSON header of a safetensors file (8-byte little-endian length, then JSON).
header() {
    local n
    n=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
    tail -c +9 "$1" | head -c "$n"
}

# data_end FILE: the largest end offset in the header's data_offsets.
data_end() {
    header "$1" | grep -o '"data_offsets":\[[0-9]*,[0-9]*\]' | sed 's/.*,\([0-9]*\)\]/\1/' | sort -n | tail -n 1
}

"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --out "$TMP/d1" >"$TMP/d1.out" 2>"$TMP/d1.err"
expect_code 0 "$?" "dump of both workloads"
expect_grep "^w0-b1  batch_size=1  $TMP/d1/w0-b1.safetensors\$" "$TMP/d1.out" "a line per file written"
expect_grep '2 of 2 workload\(s\) dumped .*seed 1, trial 0, device cpu' "$TMP/d1.err" "summary on stderr"
for w in w0-b1 w1-b3; do
    f="$TMP/d1/$w.safetensors"
    if [ -f "$f" ]; then pass "$w: file written"; else fail "$w: no file"; continue; fi
    header "$f" >"$TMP/$w.h"
    n=$(od -An -t u8 -N 8 "$f" | tr -d ' ')
    [ $((n % 8)) -eq 0 ] && pass "$w: header padded to 8" || fail "$w: header length $n"
    [ "$(stat -c %s "$f")" -eq $((8 + n + $(data_end "$f"))) ] && pass "$w: size = 8 + header + data" ||
        fail "$w: size $(stat -c %s "$f") does not add up"
    expect_grep "^\\{\"__metadata__\":\\{\"format\":\"kwb-dump\",\"definition\":\"$DEF\",\"workload\":\"$w\",\"device\":\"cpu\"" \
        "$TMP/$w.h" "$w: metadata first: definition, workload, device"
    expect_grep '"seed":"1","trial":"0"' "$TMP/$w.h" "$w: metadata seed and trial"
    for t in q k v state A_log a dt_bias b; do
        expect_grep "\"in\\.$t\":\\{\"dtype\":\"(BF16|F32)\"" "$TMP/$w.h" "$w: input $t"
    done
    expect_grep '"in\.scale":\{"dtype":"F32","shape":\[\]' "$TMP/$w.h" "$w: the scalar as a 0-dim F32"
    expect_grep '"out\.output":\{"dtype":"BF16","shape":\[[13],1,8,128\]' "$TMP/$w.h" "$w: output"
    expect_grep '"out\.new_state":\{"dtype":"F32","shape":\[[13],8,128,128\]' "$TMP/$w.h" "$w: new_state"
done
expect_grep '"in\.q":\{"dtype":"BF16","shape":\[3,1,4,128\]' "$TMP/w1-b3.h" "shapes follow the workload's axes"

# The same bytes every time; another trial or seed gives other inputs, and other outputs.
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads w1 --out "$TMP/d2" >/dev/null 2>&1
cmp -s "$TMP/d1/w1-b3.safetensors" "$TMP/d2/w1-b3.safetensors" && pass "deterministic" || fail "two dumps differ"
[ ! -e "$TMP/d2/w0-b1.safetensors" ] && pass "--workloads selects" || fail "--workloads w1 dumped w0 too"
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads w1 --trial 1 --out "$TMP/t1" >/dev/null 2>&1
expect_code 0 "$?" "--trial 1"
header "$TMP/t1/w1-b3.safetensors" >"$TMP/t1.h"
expect_grep '"trial":"1"' "$TMP/t1.h" "trial 1 in the metadata"
n=$(od -An -t u8 -N 8 "$TMP/d1/w1-b3.safetensors" | tr -d ' ')
cmp -s <(tail -c +$((9 + n)) "$TMP/d1/w1-b3.safetensors") <(tail -c +$((9 + n)) "$TMP/t1/w1-b3.safetensors") &&
    fail "trial 1 has trial 0's tensors" || pass "trial 1: other tensors"
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads w1 --seed 2 --out "$TMP/s2" >/dev/null 2>&1
cmp -s <(tail -c +$((9 + n)) "$TMP/d1/w1-b3.safetensors") <(tail -c +$((9 + n)) "$TMP/s2/w1-b3.safetensors") &&
    fail "seed 2 has seed 1's tensors" || pass "seed 2: other tensors"
# Replacing a dump: the new file, no temporary left.
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads w1 --seed 2 --out "$TMP/d2" >/dev/null 2>&1
cmp -s "$TMP/d2/w1-b3.safetensors" "$TMP/s2/w1-b3.safetensors" && pass "a dump replaces the old file" ||
    fail "the old file stayed"
[ "$(ls -A "$TMP/d2" | wc -l)" -eq 1 ] && pass "no temporary left" || fail "leftovers: $(ls -A "$TMP/d2")"

# A definition by path: its TraceSet root is the folder above definitions/.
"$KWB" dump --definition "$TMP/ds/definitions/$DEF.json" --workloads w0 --out "$TMP/p" >"$TMP/p.out" 2>&1
expect_code 0 "$?" "--definition PATH"
cmp -s "$TMP/d1/w0-b1.safetensors" "$TMP/p/w0-b1.safetensors" && pass "by path: the same file" ||
    fail "by path: another file"

# Refusals: exit 2, a message, no folder made or no file in it.
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads nosuch --out "$TMP/e1" >"$TMP/e1.out" 2>&1
expect_code 2 "$?" "unknown workload"
expect_grep "kwb dump: no workload of $DEF matches 'nosuch'" "$TMP/e1.out" "unknown workload: named"
[ ! -e "$TMP/e1" ] && pass "unknown workload: no folder made" || fail "unknown workload: folder made"
"$KWB" dump --definition nosuch_def --dataset "$TMP/ds" --out "$TMP/e2" >"$TMP/e2.out" 2>&1
expect_code 2 "$?" "unknown definition"
expect_grep 'no nosuch_def.json under .*definitions' "$TMP/e2.out" "unknown definition: named"
"$KWB" dump --definition "$DEF" --out "$TMP/e3" --trial -1 >"$TMP/e3.out" 2>&1
expect_code 2 "$?" "--trial -1"
expect_grep "kwb dump: --trial: '-1' is not a whole number" "$TMP/e3.out" "--trial -1: named"
"$KWB" dump --definition "$DEF" --out "$TMP/e3" --device gpu >"$TMP/e3.out" 2>&1
expect_code 2 "$?" "--device gpu"
expect_grep "kwb dump: --device: 'gpu' is not cpu, cuda or cuda:N" "$TMP/e3.out" "--device gpu: named"
"$KWB" dump --definition "$DEF" >"$TMP/e3.out" 2>&1
expect_code 2 "$?" "no --out"
expect_grep 'definition and --out are required' "$TMP/e3.out" "no --out: named"

: >"$TMP/plain"
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --out "$TMP/plain/sub" >"$TMP/e4.out" 2>&1
expect_code 2 "$?" "out folder under a file"
expect_grep "kwb dump: --out $TMP/plain/sub: cannot write there: Not a directory" "$TMP/e4.out" "out under a file: named"
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --out "$TMP/plain" >"$TMP/e5.out" 2>&1
expect_code 2 "$?" "out is a file"
expect_grep "cannot write there: not a folder" "$TMP/e5.out" "out is a file: named"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
    "$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --out "$TMP/ro" >"$TMP/e6.out" 2>&1
    expect_code 2 "$?" "read-only out folder"
    expect_grep "cannot write there: Permission denied" "$TMP/e6.out" "read-only out folder: named"
    [ -z "$(ls -A "$TMP/ro")" ] && pass "read-only: nothing written" || fail "read-only: $(ls -A "$TMP/ro")"
    chmod 755 "$TMP/ro"
else
    pass "read-only out folder: skipped as root (root writes anywhere)"
fi

# A workload whose input cannot be made: exit 1 with its reason, no file for it, the other dumped.
printf '{"definition": "%s", "solution": null, "workload": {"uuid": "w2-blob", "axes": {"batch_size": 1}, "inputs": {"scale": {"type": "scalar", "value": 0.0}, "state": {"type": "safetensors", "path": "blob/missing.safetensors", "tensor_key": "state"}}}, "evaluation": null}\n' \
    "$DEF" >>"$TMP/ds/workloads/$DEF.jsonl"
"$KWB" dump --definition "$DEF" --dataset "$TMP/ds" --workloads w --out "$TMP/e7" >"$TMP/e7.out" 2>"$TMP/e7.err"
expect_code 1 "$?" "a workload that cannot be made"
expect_grep "kwb dump: w2-blob: not dumped: RUNTIME_ERROR: input 'state': .*missing.safetensors: cannot open" "$TMP/e7.err" \
    "its reason is named"
expect_grep '2 of 3 workload\(s\) dumped' "$TMP/e7.err" "the others are dumped"
[ "$(ls -A "$TMP/e7" | tr '\n' ' ')" = "w0-b1.safetensors w1-b3.safetensors " ] && pass "nothing half-written" ||
    fail "leftovers: $(ls -A "$TMP/e7")"

# A job the runner refuses as a whole (a definition it has no reference for): each workload's
# reason is still named, not only "0 of 1 dumped".
mkdir -p "$TMP/noref/definitions" "$TMP/noref/workloads"
sed -e 's/"name": "[^"]*"/"name": "no_reference_def"/' -e '/"reference": {"cpu"/d' \
    "$top_srcdir/workloads/definitions/gdn/$DEF.json" >"$TMP/noref/definitions/no_reference_def.json"
sed "s/$DEF/no_reference_def/" "$TMP/ds/workloads/$DEF.jsonl" | head -n 1 >"$TMP/noref/workloads/no_reference_def.jsonl"
"$KWB" dump --definition no_reference_def --dataset "$TMP/noref" --out "$TMP/e8" >"$TMP/e8.out" 2>"$TMP/e8.err"
expect_code 1 "$?" "a definition without a reference"
expect_grep "kwb dump: w0-b1: not dumped: RUNTIME_ERROR: the job names no reference for definition 'no_reference_def'" "$TMP/e8.err" \
    "the reason of a refused job is named per workload"
finish
