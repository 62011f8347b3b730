#!/bin/bash
# The shipped definitions' references are solution folders (kernels/DEF/reference/cpu, cuda)
# named in each definition's "kwb": {"reference": ...}: each builds on its own, as kwb builds it
# (its sources, -I kwb's include folder and the include folders the definition names), and
# exports its entry point and everything its definition declares it brings: kwb_cost_values for
# kwb.cost.from_inputs, kwb_check where kwb.check.method is "reference", a generator for inputs
# declared {"reference": true} (on cuda the device's and the host twin). The CUDA ones are built
# with nvcc when there is one (else said, not failed).
. "$top_srcdir/tests/lib.sh"

nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
defs=$(grep -l '"reference": {"cpu"' "$top_srcdir"/workloads/definitions/*/*.json)
[ "$(echo "$defs" | wc -l)" -eq 5 ] && pass "the five shipped definitions name their references" ||
    fail "definitions naming a reference: $(echo "$defs" | wc -l)"

# needs DEF.json DEVICE: the entry symbol, source folder, include flags and the symbols the
# reference must export, one per line (python3 reads the JSON; the tests' helper only).
needs() {
    python3 - "$1" "$2" "$top_srcdir/kernels" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); dev = sys.argv[2]; kernels = sys.argv[3]
k = d["kwb"]; ref = k["reference"]
folder = f"{kernels}/{ref[dev]}"
sol = json.load(open(f"{folder}/solution.json"))
print(folder)
print(" ".join(s["path"] for s in sol["sources"] if s["path"].endswith((".c", ".cu"))))
print(" ".join(f"-I{kernels}/{i}" for i in ref.get("include", [])))
print(sol["spec"]["entry_point"].split("::")[1])
if k.get("cost", {}).get("from_inputs"):
    print("kwb_cost_values")
if k.get("check", {}).get("method") == "reference":
    print("kwb_check")
if any(g.get("reference") for g in k.get("inputs", {}).values()):
    print("kwb_generate_host" if dev == "cpu" else "kwb_generate\nkwb_generate_host")
PY
}

for def in $defs; do
    name=$(basename "$def" .json)
    for dev in cpu cuda; do
        mapfile -t n < <(needs "$def" "$dev")
        folder=${n[0]} srcs=${n[1]} incs=${n[2]}
        so="$TMP/$name-$dev.so"
        if [ "$dev" = cpu ]; then
            (cd "$folder" && cc -std=gnu11 -O2 -shared -fPIC -Wall -Werror -I"$top_srcdir/include" $incs $srcs \
                -o "$so" -lm) >"$TMP/build.log" 2>&1
        elif [ -n "$nvcc" ]; then
            (cd "$folder" && "$nvcc" -O3 -shared -Xcompiler=-fPIC -cudart=shared \
                -gencode=arch=compute_90a,code=sm_90a -I"$top_srcdir/include" $incs $srcs -o "$so") >"$TMP/build.log" 2>&1
        else
            pass "$name/$dev: no nvcc here, not built"
            continue
        fi
        expect_code 0 "$?" "$name/$dev builds as a solution"
        [ -f "$so" ] || { sed 's/^/    /' "$TMP/build.log" >&2; continue; }
        nm -D --defined-only "$so" | awk '{print $3}' >"$TMP/syms"
        for sym in "${n[@]:3}"; do
            grep -qx "$sym" "$TMP/syms" && pass "$name/$dev exports $sym" || fail "$name/$dev lacks $sym"
        done
    done
done

# A kwb copied elsewhere (as onto a GPU box, beside no kernels/ folder) finds the references
# beside the dataset it is given; given one with no kernels/ beside it, it says what it missed.
mkdir -p "$TMP/bin" && cp "$KWB" "$TMP/bin/kwb"
(unset KWB_KERNELS && "$TMP/bin/kwb" eval --definition "$DEF" --solution "$KERNELS/baseline" --workloads 901e5104 \
    --trials 1 --max-time 0.01 --quiet >"$TMP/copied.out" 2>&1)
expect_code 0 "$?" "a copied kwb: the references beside the dataset"
mkdir -p "$TMP/ds2/definitions" "$TMP/ds2/workloads"
cp "$top_srcdir/workloads/definitions/gdn/$DEF.json" "$TMP/ds2/definitions/"
sed -n 1p "$top_srcdir/workloads/workloads/gdn/$DEF.jsonl" >"$TMP/ds2/workloads/$DEF.jsonl"
(unset KWB_KERNELS && KWB_DATASET="$TMP/ds2" "$TMP/bin/kwb" eval --definition "$DEF" --solution "$KERNELS/baseline" \
    --trials 1 --max-time 0.01 --quiet >"$TMP/lost.out" 2>&1)
expect_code 2 "$?" "a copied kwb with no kernels beside its dataset: refused"
expect_grep "ds2/definitions/$DEF/reference/cpu/solution.json: cannot read" "$TMP/lost.out" "the folder it looked for is named"

# The declarations are what decides: without the top-k's declared check and generator, its
# reference's exports are there but unused (a check of this test's own reading of them).
mapfile -t n < <(needs "$top_srcdir/workloads/definitions/gdn/gdn_decode_qk4_v8_d128_k_last.json" cpu)
[ "${#n[@]}" -eq 4 ] && pass "GDN decode declares nothing beyond its entry point" || fail "GDN decode needs: ${n[*]:3}"
finish
