#!/bin/bash
# The timed calls' input sets at many places, and what happens when memory runs short: the GDN
# decode's batch-64 workload (33.5 MB of inputs a set) asked for 16 places (KWB_INPUT_PLACES)
# under data-size limits (ulimit -d) from generous to tight. A place that cannot be allocated ends
# the drawing of new places, not the run (at worst the one set is refilled where it lies): every
# run that got as far as timing passes, tight ones on at most half the generous run's places
# (before, a place the memory could not hold was a RUNTIME_ERROR, or an abort in the runner).
. "$top_srcdir/tests/lib.sh"

u=eaf0a285
grep -q "$u" "$KWB_DATASET/workloads/gdn/$DEF.jsonl" || { echo "no batch-64 workload $u"; exit 77; }
short=0 generous=
for lim in 1600000 1200000 900000 700000 600000 500000 450000 400000 350000 300000 250000 200000; do
    (ulimit -d "$lim" && KWB_INPUT_PLACES=16 exec "$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" \
        --workloads "$u" --max-time 1 --json --quiet) >"$TMP/l$lim.json" 2>"$TMP/l$lim.err"
    got=$(python3 - "$TMP/l$lim.json" <<'PY'
import json, sys
try:
    w = json.load(open(sys.argv[1]))["workloads"][0]
except (OSError, ValueError, KeyError, IndexError):
    print("none -")  # kwb itself did not get that far under this limit
    sys.exit()
print(w["status"], w.get("cost", {}).get("input_places", "-"), "|", w.get("message", "")[:200])
PY
)
    echo "ulimit -d $lim: $got"
    read -r status places _ <<<"$got"
    if [ "$status" = PASSED ] && [ "$places" -ge 1 ] 2>/dev/null && [ "$places" -le 16 ]; then
        : "${generous:=$places}"
        [ "$places" -le 5 ] && [ "$((2 * places))" -le "$generous" ] && short=$((short + 1))
    else
        case $got in
        *"while timing"*) fail "ulimit -d $lim: a place cost the run: $got" ;;
        "none -"* | *"no host memory"* | *"out of memory"* | *"cannot allocate"*) ;; # too tight for kwb or the trials
        *) fail "ulimit -d $lim: $got" ;;
        esac
    fi
done
[ "$short" -ge 1 ] && pass "memory short for the places: passed on at most half the generous run's $generous ($short limits)" ||
    fail "no limit gave a passing run on few places (generous: ${generous:-none})"
finish
