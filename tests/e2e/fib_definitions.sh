#!/bin/bash
# Definitions from FlashInfer-Bench's own dataset that kwb never shipped (an RMSNorm, a GEMM, a
# sampling operator; tests/fixtures/fib, source named in its README) evaluate on the cpu with a
# C reference solution: given with --reference DIR, or named in the definition's
# "kwb": {"reference": {"cpu": DIR}}; a wrong candidate fails against it; no reference at all,
# or one for another definition, is refused with the reason; kwb dump uses it too.
. "$top_srcdir/tests/lib.sh"

FIB="$top_srcdir/tests/fixtures/fib"
SOL="$FIB/solutions"
ev() { # NAME DEF CANDIDATE WORKLOADS ARGS...: kwb eval into $TMP/NAME.out/.err, prints the exit code
    local name=$1 def=$2 cand=$3 wl=$4
    shift 4
    "$KWB" eval --dataset "${DS:-$FIB}" --definition "$def" --solution "$cand" --workloads "$wl" --trials 2 \
        --max-time 0.01 --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $?
}

code=$(ev rms rmsnorm_h128 "$SOL/rmsnorm_fast" '6abd9329|e971e0cc' --reference "$SOL/rmsnorm_ref")
expect_code 0 "$code" "rmsnorm_h128 against its C reference"
expect_grep '^2 workloads: 2 PASSED' "$TMP/rms.out" "rmsnorm: both workloads pass"
# The tolerance rule runs where the outputs are (the device's compare): nothing is read back for
# the checks that pass.
code=$(ev rmsj rmsnorm_h128 "$SOL/rmsnorm_fast" '6abd9329' --reference "$SOL/rmsnorm_ref" --json)
[ "$(jq '.workloads[0].cost.device_compares' "$TMP/rmsj.out")" -gt 0 ] && pass "checks made on the device" ||
    fail "device compares: $(jq -c '.workloads[0].cost' "$TMP/rmsj.out")"
code=$(ev gemm gemm_n128_k2048 "$SOL/gemm_blocked" '6ba7c7de|91e43228' --reference "$SOL/gemm_ref")
expect_code 0 "$code" "gemm_n128_k2048 against its C reference"
expect_grep '^2 workloads: 2 PASSED' "$TMP/gemm.out" "gemm: both workloads pass"
# The sampling reference brings its own check (kwb/reference.h's kwb_check: the sample must be a
# token the top-k filter keeps), chosen by the definition's "kwb": {"check": {"method":
# "reference"}} (here added to a copy: the fixture is FlashInfer-Bench's byte for byte): a sampler
# drawing at random passes, one taking a dropped token fails; without the choice, the tolerance
# rule holds the random draws to the reference's.
SD=top_k_sampling_from_probs_v129280
mkdir -p "$TMP/sds/definitions/sampling" "$TMP/sds/workloads"
cp -r "$FIB/workloads/sampling" "$TMP/sds/workloads/"
sed 's/^{/{"kwb": {"check": {"method": "reference"}},/' "$FIB/definitions/sampling/$SD.json" \
    >"$TMP/sds/definitions/sampling/$SD.json"
code=$(DS="$TMP/sds" ev samp $SD "$SOL/sampling_radix" kwb --reference "$SOL/sampling_ref")
expect_code 0 "$code" "top_k_sampling_from_probs_v129280 against its C reference"
expect_grep '^2 workloads: 2 PASSED' "$TMP/samp.out" "sampling: both workloads pass"
code=$(DS="$TMP/sds" ev rand $SD "$SOL/sampling_random" kwb --reference "$SOL/sampling_ref")
expect_code 0 "$code" "a sampler with its own random draws"
expect_grep '^2 workloads: 2 PASSED' "$TMP/rand.out" "random draws: checked by support, both pass"
code=$(ev tol $SD "$SOL/sampling_random" kwb --reference "$SOL/sampling_ref")
expect_code 1 "$code" "random draws without the reference's check chosen"
expect_grep "output 'samples': .* outside atol" "$TMP/tol.out" "the tolerance rule checks them then"
# Outputs equal to the reference's pass without its check (no inputs read back for it); others
# are checked by it. The cost account counts both.
code=$(DS="$TMP/sds" ev same $SD "$SOL/sampling_ref" kwb --reference "$SOL/sampling_ref" --json)
expect_code 0 "$code" "the reference's own draws as a candidate"
[ "$(jq '[.workloads[].cost.own_checks] | add' "$TMP/same.out")" = 0 ] &&
    [ "$(jq '[.workloads[].cost.own_checks_spared] | add' "$TMP/same.out")" -gt 0 ] &&
    pass "the reference's own outputs: its check spared" || fail "own checks: $(jq -c '[.workloads[].cost]' "$TMP/same.out")"
code=$(DS="$TMP/sds" ev rand2 $SD "$SOL/sampling_random" kwb --reference "$SOL/sampling_ref" --json)
[ "$(jq '[.workloads[].cost.own_checks] | add' "$TMP/rand2.out")" -gt 0 ] &&
    pass "other draws: the reference's check called" || fail "own checks: $(jq -c '[.workloads[].cost]' "$TMP/rand2.out")"
cp -r "$SOL/sampling_random" "$TMP/dropped"
sed -i '1i #define PICK_DROPPED 1' "$TMP/dropped/sampling.c"
sed -i 's/"top_k_sampling_v129280_random_draw"/"sampler_takes_dropped_tokens"/' "$TMP/dropped/solution.json"
code=$(DS="$TMP/sds" ev dropped $SD "$TMP/dropped" kwb --reference "$SOL/sampling_ref")
expect_code 1 "$code" "a sampler taking dropped tokens"
expect_grep "INCORRECT_NUMERICAL" "$TMP/dropped.out" "dropped tokens: INCORRECT_NUMERICAL"
expect_grep "row 0: sample [0-9]+ is not a token the top-(-?[0-9]+) filter keeps" "$TMP/dropped.out" \
    "dropped tokens: the reference's check says why"
# A definition that chooses its reference's check, and a reference without one: refused, said.
cp -r "$SOL/sampling_ref" "$TMP/nocheck"
sed -i 's/\bkwb_check\b/sampling_support_check/' "$TMP/nocheck/"*.c
code=$(DS="$TMP/sds" ev nocheck $SD "$SOL/sampling_random" kwb --reference "$TMP/nocheck")
expect_code 2 "$code" "the chosen check missing from the reference: refused"
expect_grep "exports no kwb_check, and definition '$SD' checks by its reference's" "$TMP/nocheck.err" \
    "the chosen check missing: said"

# The reference is really what the candidate is checked against: one that forgets the weight fails.
cp -r "$SOL/rmsnorm_fast" "$TMP/noweight"
sed -i 's/ \* from_bf16(w\[i\]));/);/; s/"rmsnorm_h128_float_unrolled"/"rmsnorm_forgets_weight"/' \
    "$TMP/noweight/rmsnorm.c" "$TMP/noweight/solution.json"
code=$(ev bad rmsnorm_h128 "$TMP/noweight" '6abd9329' --reference "$SOL/rmsnorm_ref")
expect_code 1 "$code" "a wrong rmsnorm"
expect_grep '^6abd9329 .* INCORRECT_NUMERICAL' "$TMP/bad.out" "the wrong rmsnorm is INCORRECT_NUMERICAL"

# Declared in the definition: "kwb": {"reference": {"cpu": DIR}}, DIR relative to the definition's folder.
mkdir -p "$TMP/ds/definitions/gemm" "$TMP/ds/workloads/gemm" "$TMP/ds/refs"
cp -r "$SOL/gemm_ref" "$TMP/ds/refs/"
cp "$FIB/workloads/gemm/gemm_n128_k2048.jsonl" "$TMP/ds/workloads/gemm/"
sed 's/^{/{"kwb": {"reference": {"cpu": "..\/..\/refs\/gemm_ref"}},/' "$FIB/definitions/gemm/gemm_n128_k2048.json" \
    >"$TMP/ds/definitions/gemm/gemm_n128_k2048.json"
code=$(DS="$TMP/ds" ev decl gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228')
expect_code 0 "$code" "gemm with the reference its definition declares"
expect_grep '^91e43228 .* PASSED' "$TMP/decl.out" "declared reference: PASSED"

# No reference anywhere: refused before any candidate runs, with the reason and the remedy.
code=$(ev none gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228')
expect_code 2 "$code" "no reference"
expect_grep "kwb eval: .*the reference of .*gemm_n128_k2048.json fails on it.*the job names no reference for definition 'gemm_n128_k2048' \(give one as a solution folder" \
    "$TMP/none.err" "no reference: the reason and the remedy"
# A reference for another definition: refused up front.
code=$(ev other gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228' --reference "$SOL/rmsnorm_ref")
expect_code 2 "$code" "a reference of another definition"
expect_grep "kwb eval: reference .*solution.json: solution is for 'rmsnorm_h128', not 'gemm_n128_k2048'" "$TMP/other.err" \
    "another definition's reference: named"
# A reference that does not compile: refused up front with the compiler's output.
cp -r "$SOL/gemm_ref" "$TMP/broken" && echo 'syntax error here' >>"$TMP/broken/gemm_ref.c"
code=$(ev broken gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228' --reference "$TMP/broken")
expect_code 2 "$code" "a reference that does not compile"
expect_grep "kwb eval: reference gemm_n128_k2048_reference_c .* did not compile" "$TMP/broken.err" "broken reference: named"

# --reference torch where python3 cannot import torch (hidden here, so that the outcome is the same
# on every machine): the reference's preflight fails with the reason, nothing hangs, no process is left.
mkdir -p "$TMP/hide/torch" && echo 'raise ImportError("torch hidden by the test")' >"$TMP/hide/torch/__init__.py"
code=$(PYTHONPATH="$TMP/hide" ev torch gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228' --reference torch)
expect_code 2 "$code" "--reference torch without torch: refused before any candidate runs"
expect_grep "torch reference: python3 cannot run the reference of .*gemm_n128_k2048.json: ImportError: torch hidden by the test" \
    "$TMP/torch.err" "without torch: the reason"
pgrep -f "kwb-torch-reference.py .*$TMP" >/dev/null && fail "a python process outlived kwb" || pass "no python process left"
# A definition without a "reference" source cannot use it.
mkdir -p "$TMP/nosrc/definitions" "$TMP/nosrc/workloads"
sed 's/"reference": /"reference_removed": /' "$FIB/definitions/gemm/gemm_n128_k2048.json" >"$TMP/nosrc/definitions/gemm_n128_k2048.json"
cp "$FIB/workloads/gemm/gemm_n128_k2048.jsonl" "$TMP/nosrc/workloads/"
code=$(DS="$TMP/nosrc" ev nosrc gemm_n128_k2048 "$SOL/gemm_blocked" '91e43228' --reference torch)
expect_code 2 "$code" "--reference torch, no reference source"
expect_grep "kwb eval: --reference torch: definition 'gemm_n128_k2048' has no \"reference\" source" "$TMP/nosrc.err" \
    "no reference source: named"

# kwb dump writes the reference solution's outputs.
"$KWB" dump --dataset "$FIB" --definition rmsnorm_h128 --workloads e971e0cc --reference "$SOL/rmsnorm_ref" \
    --out "$TMP/dump" >"$TMP/dump.out" 2>"$TMP/dump.err"
expect_code 0 "$?" "kwb dump with --reference"
[ -s "$TMP/dump/e971e0cc-d914-424e-a3ea-187e9cec413f.safetensors" ] && pass "dump: file written" || fail "dump: no file"
finish
