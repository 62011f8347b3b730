#!/bin/bash
# The roofline share on the cpu never reads over 100 %: warm timings are set against the copy
# bandwidth measured for the working set at hand (L1/L2/L3 or memory), not the memory's alone.
# An honest memcpy of 16 KiB, 400 KB and 4 MiB (tests/adversarial's control) and the shipped
# multithreaded GDN decode kernel: the JSON's share stays under 1.25 (the noise of two
# measurements on a busy machine; against the memory's peak they read 13-37), the table's at or
# under 100 %, and the copy comes close (over 25 %: the peak is not absurdly high either; the
# honest copy is one thread and the cache's peak that of every core, 2 in CI: about half).
. "$top_srcdir/tests/lib.sh"

ADV="$top_srcdir/tests/adversarial"
"$KWB" eval --dataset "$ADV/dataset" --definition bench_copy_f32 --solution "$ADV/cpu/00_honest" --trials 1 \
    --quiet >"$TMP/copy.out" 2>"$TMP/copy.err"  # (its status is adversarial.sh's business)
"$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --workloads '901e5104|ec9d2340|53385c7f' --trials 1 \
    --max-time 0.05 --quiet >"$TMP/gdn.out" 2>"$TMP/gdn.err"
expect_code 0 "$?" "GDN decode, cpu/fast"
for f in copy gdn; do
    awk '$NF ~ /%$/ { sub("%", "", $NF); n++; if ($NF + 0 > 100) bad = bad " " $1 "=" $NF "%" }
         END { if (n == 0) print "no roofline column"; else if (bad != "") print "over 100%:" bad }' \
        "$TMP/$f.out" >"$TMP/$f.bad"
    [ ! -s "$TMP/$f.bad" ] && pass "$f: every roofline share at or under 100 %" || { fail "$f: $(cat "$TMP/$f.bad")"; cat "$TMP/$f.out" >&2; }
done
"$KWB" eval --dataset "$ADV/dataset" --definition bench_copy_f32 --solution "$ADV/cpu/00_honest" --trials 1 \
    --quiet --json >"$TMP/copy.json" 2>/dev/null
python3 -c 'import json, sys
bad = [(w["uuid"], w["roofline"]) for w in json.load(open(sys.argv[1]))["workloads"] if w.get("roofline", 0) > 1.25]
print("over 1.25: %s" % bad if bad else "")' "$TMP/copy.json" >"$TMP/json.bad"
[ ! -s "$TMP/json.bad" ] || [ "$(cat "$TMP/json.bad")" = "" ] && pass "copy: every measured share under 1.25" ||
    fail "copy: $(cat "$TMP/json.bad")"
awk '$1 == "c-4k" || $1 == "c-odd" { sub("%", "", $NF); if ($NF + 0 < 25) print $1 "=" $NF "%" }' "$TMP/copy.out" >"$TMP/low"
[ ! -s "$TMP/low" ] && pass "copy in cache: the share is near the cache's peak" || fail "copy: share too low: $(cat "$TMP/low")"
finish
