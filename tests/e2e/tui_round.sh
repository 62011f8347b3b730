#!/bin/bash
# kwb tui in script mode (KWB_SCRIPT, no terminal) drives one complete round on the CPU demo
# (GDN decode, the fast solution with a NAP_US knob that sleeps 20 ms per call): the session starts (the start is
# evaluated and promoted), the proposals come from kwb propose, the first direction is chosen, the
# agent (kwb write, tuner) writes it, the diff is read, accepted, judged against the best (kwb judge:
# gate on the representative, sweep of all 7), and the promotion confirmed. The store shows the promotion; the screens at 80x24 and 160x48
# match tests/golden/ (volatile numbers normalised; KWB_UPDATE_GOLDEN=1 rewrites them).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tui_lib.sh"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
export KWB_WORKSPACE="$TMP/ws"
cp -r "$KERNELS/fast" "$TMP/start"
# a knob before the others, proposed first: a 20 ms sleep per call that the round turns off, so the
# verdict is "promote" however loaded the machine (its rsd was seen over 50 %)
sed -i -e 's|^#define LANES 8 |#define NAP_US 20000 /* kwb:tune NAP_US {1,20000} */\n#define LANES 8 |' \
    -e 's|^    (void)stream;$|    (void)stream;\n    usleep(NAP_US);|' "$TMP/start/gdn_decode_fast.c"
grep -q 'usleep(NAP_US)' "$TMP/start/gdn_decode_fast.c" || fail "the start's NAP_US knob"
D="$TMP/dump"
mkdir -p "$D"
cat >"$TMP/round.script" <<SCRIPT
# the session has started and kwb propose has answered: choose a direction
:dump-screen --normalize $D/choose-80x24.txt
:dump-model $D/choose.model
:resize 160x48
:dump-screen --normalize $D/choose-160x48.txt
:resize 80x24
<Enter>
# the agent has written the candidate: read the diff
:dump-screen --normalize $D/review-80x24.txt
:dump-attrs $D/review.attrs
:dump-model $D/review.model
:resize 160x48
:dump-screen --normalize $D/review-160x48.txt
:dump-attrs $D/review-160x48.attrs
:resize 80x24
# accept: build, then kwb judge against the best (gate, sweep, replay, held-out shapes)
a
:dump-screen --normalize $D/confirm-80x24.txt
:dump-screen $D/confirm-raw.txt
:dump-model $D/confirm.model
# confirm the promotion
y
:dump-model $D/final.model
:resize 160x48
:dump-screen --normalize $D/final-160x48.txt
SCRIPT
KWB_SCRIPT="$TMP/round.script" LINES=24 COLUMNS=80 timeout 300 "$KWB" tui --session ui \
    --definition "$DEF" --solution "$TMP/start" --workloads batch_size=16 --max-time 0.3 \
    >"$TMP/out" 2>"$TMP/err"
expect_code 0 "$?" "the scripted round ran"
expect_grep '^step choose' "$D/choose.model" "proposals: the engineer chooses"
expect_grep '^proposal pending tune\.NAP_US=1' "$D/choose.model" "proposals: tune.NAP_US=1 proposed"
expect_grep '^step review' "$D/review.model" "the agent wrote the candidate: review"
expect_grep '^focus diff' "$D/review.model" "the diff has the focus"
expect_grep '^\+#define NAP_US 1 |NAP_US 1 ' "$D/review-80x24.txt" "the diff shows the knob turned"
expect_grep 'diff-del-emph' "$D/review-160x48.attrs" "side by side: changed words marked (deleted)"
expect_grep 'diff-add-emph' "$D/review-160x48.attrs" "side by side: changed words marked (added)"
expect_grep '^step verdict' "$D/confirm.model" "gate and sweep done: the verdict"
expect_grep 'gate passed on( <n>|[0-9]+) representative\(s\) \([0-9a-f]{8}\): faster on' "$D/confirm-80x24.txt" "the verdict: the gate passed"
expect_grep 'candidate +paired +roofline' "$D/confirm-80x24.txt" "beside the verdict: the speedup column is the paired comparison, so labelled"
expect_grep "paired: the verdict's ratio" "$D/confirm-80x24.txt" "the table's title says what the paired figure is"
shown=$(awk '$1 == "63d4cb66" { print $6 }' "$D/confirm-raw.txt")
want=$(sqlite3 "$TMP/ws/kwb.db" "SELECT printf('%.2fx', 1.0 / e.ratio) FROM evaluations e JOIN eval_runs r ON r.id = e.eval_run_id
    JOIN candidates c ON c.id = r.candidate_id WHERE c.name = 'r2-tune-NAP_US-1' AND e.workload_uuid LIKE '63d4cb66%'
    AND e.ratio > 0 ORDER BY r.id DESC LIMIT 1")
[ -n "$want" ] && [ "$shown" = "$want" ] && pass "the speedup beside the verdict is the judge's paired ratio ($shown)" ||
    fail "speedup beside the verdict: shown '$shown', the judge's paired ratio '$want'"
expect_grep 'candidate +vs start +roofline' "$D/final-160x48.txt" "with no candidate judged: the speedup over the start, so labelled"
expect_grep '^proposal accepted tune\.NAP_US=1' "$D/final.model" "the direction is accepted"
expect_grep '^best r2-tune-NAP_US-1' "$D/final.model" "the candidate is the best"
n_rows=$(grep -cE '^[0-9a-f]{8} batch_size=16 ' "$D/final-160x48.txt")
[ "$n_rows" -eq 7 ] && [ "$(grep -cE '^[0-9a-f]{8} batch_size=16 <n> <n> - ' "$D/final-160x48.txt")" -eq "$n_rows" ] &&
    pass "after the promotion: the best column holds the new best, no candidate beside it" ||
    fail "after the promotion the table still shows the decided candidate beside the old best"
db="$TMP/ws/kwb.db"
[ "$(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE reason LIKE 'gate passed on 1 representative(s) (%): faster on 1; sweep: all 7 PASSED; faster on %, slower on none; mean %'")" -ge 1 ] &&
    pass "store: the decision's reason has the gate and the sweep" || fail "store: gate and sweep in the reason"
[ "$(sqlite3 "$db" "SELECT group_concat(n_workloads) FROM (SELECT r.n_workloads FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = 'r2-tune-NAP_US-1' ORDER BY r.id)")" = "1,7" ] &&
    pass "store: the candidate's gate (1 workload) and sweep (7)" || fail "store: gate and sweep eval runs"
[ "$(sqlite3 "$db" "SELECT state FROM candidates WHERE name = 'r2-tune-NAP_US-1'")" = promoted ] &&
    pass "store: the candidate is promoted" || fail "store: promotion"
[ "$(sqlite3 "$db" "SELECT count(*) FROM directions WHERE title = 'tune.NAP_US=20000' AND state = 'rejected'")" -eq 1 ] &&
    pass "store: going back to NAP_US=20000 is barred (cycle)" || fail "store: cycle bar"
for g in choose-80x24 choose-160x48 review-80x24 review-160x48 confirm-80x24 final-160x48; do
    golden_compare "$D/$g.txt" "tui_round_$g.txt"
done
[ -s "$TMP/err" ] && { echo "stderr:"; sed 's/^/    /' "$TMP/err"; }
finish
