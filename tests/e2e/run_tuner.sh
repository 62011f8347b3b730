#!/bin/bash
# kwb run, headless, with the built-in tuner on the CPU demo: from the fast solution with its
# LANES knob turned down to 1 and a 20 ms nap knob added, five rounds with --auto promote at least one candidate; the
# session's log and report show the trajectory; every round's direction, decision and eval
# are in the store; a rejected or promoted-from value is never proposed again; human mode
# reads y/n from stdin; bad arguments exit 2.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
cp -r "$KERNELS/fast" "$TMP/start"
sed -i 's/^#define LANES 8 /#define LANES 1 /' "$TMP/start/gdn_decode_fast.c"
grep -q '^#define LANES 1  */\* kwb:tune LANES' "$TMP/start/gdn_decode_fast.c" && pass "start: LANES 1" || fail "start: LANES 1"
# a knob before the others, proposed first: a 20 ms sleep per call that a round turns off, so that a
# promotion comes however loaded the machine is (paired ratios with an rsd over 50 % were seen)
sed -i -e 's|^#define LANES 1 |#define NAP_US 20000 /* kwb:tune NAP_US {0,20000} */\n#define LANES 1 |' \
    -e 's|^    (void)stream;$|    (void)stream;\n    if (NAP_US)\n        usleep(NAP_US);|' "$TMP/start/gdn_decode_fast.c"
grep -q 'usleep(NAP_US)' "$TMP/start/gdn_decode_fast.c" && pass "start: NAP_US 20000" || fail "start: NAP_US"
run() { "$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.3 "$@"; }

run --solution "$TMP/start" --session auto --auto --agent tuner --rounds 5 --plateau 1 >"$TMP/auto.out" 2>"$TMP/auto.err"
expect_code 0 "$?" "auto: five rounds"
expect_grep '^kwb run: [1-9][0-9]* candidate\(s\) promoted; best r[0-9]-tune-' "$TMP/auto.err" "auto: a candidate promoted"
expect_grep 'round [2-6]: r[2-6]-tune-[A-Z_]+-[0-9]+ promoted at the end: gate passed on 1 representative\(s\) \([0-9a-f]{8}\): faster on 1; sweep: all 7 PASSED; faster on [1-7], slower on none' "$TMP/auto.err" \
    "auto: the promotion's evidence"
expect_grep '^\+#define LANES 2 ' "$TMP/auto.err" "auto: the diff is shown"
expect_grep '^kwb run: supervisor: plateau: [0-9]+ rounds without a gain' "$TMP/auto.err" "auto: the supervisor notes a plateau"
"$KWB" log auto >"$TMP/log.out" 2>&1
expect_grep '^1 +start +done +start' "$TMP/log.out" "log: the start is round 1"
expect_grep '^[2-6] +tune\.[A-Z_]+=[0-9]+ +done +(r[2-6]-tune-[A-Z_]+-[0-9]+) +\1 ' "$TMP/log.out" "log: a round whose candidate became the best"
[ "$(grep -c '^[0-9]' "$TMP/log.out")" -eq 6 ] && pass "log: six rounds (start + 5)" || fail "log: six rounds"
"$KWB" report auto --format md --output "$TMP/report.md" >/dev/null 2>&1
expect_code 0 "$?" "report"
best=$(sed -n 's/^kwb run: .* promoted; best \(r[0-9]-tune-[A-Z_]*-[0-9]*\),.*/\1/p' "$TMP/auto.err")
expect_grep "$best" "$TMP/report.md" "report: the trajectory names the promoted candidate"
# Who wrote each candidate: the start is the baseline, every other the tuner's (the store records
# it; the HTML report's candidates table shows it, not "human")
"$KWB" report auto --format html --output "$TMP/report.html" >/dev/null 2>&1
expect_grep '<td>start</td><td class="num">[^<]*</td><td>baseline</td>' "$TMP/report.html" "report: the start's origin is baseline"
expect_grep "<td>$best</td><td class=\"num\">[0-9]+</td><td>tuner</td>" "$TMP/report.html" "report: the tuner's candidate is the tuner's"
expect_no_grep '<td>(human|llm|command)</td>' "$TMP/report.html" "report: no candidate of the tuner's session named another origin"
db="$TMP/ws/kwb.db"
[ "$(sqlite3 "$db" "SELECT count(*) FROM directions")" -ge 5 ] && pass "store: directions" || fail "store: directions"
promotions=$(grep -c '^kwb run: round [0-9]: r[0-9]-tune-[A-Z_]*-[0-9]* promoted' "$TMP/auto.err")
[ "$(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE direction_id IS NOT NULL AND reason LIKE 'cycle: %'")" -eq "$promotions" ] &&
    pass "store: every promoted-from value is barred (no cycle)" || fail "store: cycle bar"
[ "$(sqlite3 "$db" "SELECT count(*) FROM eval_runs WHERE n_workloads = 1")" -eq 5 ] &&
    pass "store: five gates, each on the regime's one representative" || fail "store: gate eval runs"
sweeps=$(sqlite3 "$db" "SELECT count(*) FROM eval_runs WHERE n_workloads = 7")
[ "$sweeps" -ge $((1 + promotions)) ] && [ "$sweeps" -le 6 ] &&
    pass "store: the start and every candidate past its gate swept all 7 ($sweeps)" || fail "store: $sweeps sweeps"
[ "$(sqlite3 "$db" "SELECT count(*) FROM notes WHERE text LIKE '%batch_size 16-16 (% workloads, 100% of latency): % (roofline %'")" -ge 6 ] &&
    pass "store: each evaluation's regime and class" || fail "store: regime and class notes"
[ "$(sqlite3 "$db" "SELECT count(*) FROM decisions")" -ge 6 ] && pass "store: decisions" || fail "store: decisions"
[ "$(grep -o '^kwb run: round [0-9]: set [A-Z_]* [0-9]* -> [0-9]*$' "$TMP/auto.err" | awk '{print $6 "=" $9}' | sort | uniq -d)" = "" ] &&
    pass "no direction was proposed twice" || fail "a direction was proposed twice"

# A second run of the session skips what was tried; human mode: decline the first direction, accept the next
# and the judge's verdict on it (one numbering: the start is round 1, the first direction round 2).
printf 'n\ny\ny\ny\n' | run --solution "$TMP/start" --session human --rounds 1 >"$TMP/human.out" 2>"$TMP/human.err"
expect_code 0 "$?" "human: one round"
[ "$(sqlite3 "$db" "SELECT count(*) FROM directions d JOIN sessions s ON s.id = d.session_id WHERE s.name = 'human' AND d.state = 'rejected' AND d.title = 'tune.NAP_US=0'")" -eq 1 ] &&
    pass "human: the declined direction is recorded" || fail "human: declined direction"
expect_grep 'round 2: set LANES 1 -> 2' "$TMP/human.err" "human: the next direction is evaluated"

run --solution "$TMP/start" --session x --rounds 0 >/dev/null 2>"$TMP/bad1.err"
expect_code 2 "$?" "--rounds 0: exit 2"
expect_grep 'not a whole number from 1 to 10000' "$TMP/bad1.err" "--rounds 0: said"
run --solution "$TMP/start" --session x --agent gpt >/dev/null 2>"$TMP/bad2.err"
expect_code 2 "$?" "unknown agent: exit 2"
sed -i 's/^#define LANES 1 .*/#define LANES 2 \/* kwb:tune LANES {1,4,8} *\//' "$TMP/start/gdn_decode_fast.c"
run --solution "$TMP/start" --session bad --auto --rounds 1 >/dev/null 2>"$TMP/bad3.err"
expect_code 1 "$?" "a knob off its list: the round fails"
expect_grep 'gdn_decode_fast.c:[0-9]+: knob LANES is 2, which is not one of \{1,4,8\}' "$TMP/bad3.err" "knob error names file and line"
finish
