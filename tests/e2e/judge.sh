#!/bin/bash
# kwb judge: the harness's steps on a candidate against the session's best. On a dataset of six
# workloads in two regimes (batch 1 and 64) with two held-out shapes (batch 3 and 5), whose
# definition asks for a replay (kwb.replay 5 % at 90 %: 45 trials): a slower candidate is rejected at the gate (one eval run, on the representatives
# only); a candidate that is wrong on rare inputs passes gate and sweep and is caught by the
# replay; an honest faster one passes all three (two eval runs of one candidate, its round
# continued, the replay's count in the reason; --json carries the verdict); one that hard-codes
# the shapes it was shown is caught by the held-out shapes (its replay on the gate's
# representatives only, --replay-on gate). Usage errors exit 2.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
make_dataset "$TMP/ds" 1 1 1 64 64 64
sed -i 's/"kwb": {/"kwb": {\n    "replay": {"failure_rate": 0.05, "confidence": 0.9},/' "$TMP/ds/definitions/$DEF.json"
grep -q '"failure_rate": 0.05' "$TMP/ds/definitions/$DEF.json" && pass "dataset: replay asked" || fail "dataset: replay"
mkdir -p "$TMP/ds/heldout"
for b in 3 5; do
    printf '{"definition": "%s", "solution": null, "workload": {"uuid": "held-b%d", "axes": {"batch_size": %d}, "inputs": {"scale": {"type": "scalar", "value": 0.0}}}, "evaluation": null}\n' \
        "$DEF" "$b" "$b" >>"$TMP/ds/heldout/$DEF.jsonl"
done
make_candidate "$TMP/start" start 'usleep(3000);'
make_candidate "$TMP/slower" slower 'usleep(9000);'
make_candidate "$TMP/honest" honest ''
# Wrong on about one input in 60 (a hash of q's first element): the whole output overwritten.
make_candidate "$TMP/flaky" flaky 'unsigned q0 = ((const unsigned short *)a[0].data)[0];
    if (((q0 * 2654435761u) >> 16) % 60 == 0) {
        unsigned short *o = a[9].data;
        for (long long i = 0; i < B * 8 * 128; i++) o[i] = 0x4700;
    }'
common=(--dataset "$TMP/ds" --max-time 0.1)
"$KWB" eval --definition "$DEF" --solution "$TMP/start" --session s --name start "${common[@]}" >/dev/null 2>&1
"$KWB" decide start promote --session s --reason "start" >/dev/null 2>&1 || fail "start promoted"
db="$TMP/ws/kwb.db"
runs_of() { sqlite3 "$db" "SELECT group_concat(r.n_workloads, ',') FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = '$1' ORDER BY r.id"; }

"$KWB" judge --session s --solution "$TMP/slower" --name slower "${common[@]}" >"$TMP/slower.out" 2>"$TMP/slower.err"
expect_code 1 "$?" "slower: not promotable"
expect_grep '^slower: not promotable at the gate: gate on 2 representative workload\(s\) \(w[0-2]-b1\|w[3-5]-b64\): slower on [12] of 2 workloads' \
    "$TMP/slower.out" "slower: rejected at the gate, representatives named"
[ "$(runs_of slower)" = "2" ] && pass "slower: one eval run, of the 2 representatives" || fail "slower: eval runs $(runs_of slower)"

# With the defences on, the check of timed calls' outputs on fresh inputs may catch it before the
# replay (REJECTED_INTEGRITY, depending on how many calls the time allows); off, only the
# correctness trials see its outputs: 3 per workload in gate and sweep, 45 in the replay.
KWB_NO_DEFENCES=1 "$KWB" judge --session s --solution "$TMP/flaky" --name flaky "${common[@]}" >"$TMP/flaky.out" 2>"$TMP/flaky.err"
expect_code 1 "$?" "flaky: not promotable"
expect_grep '^flaky: not promotable at the replay: gate passed on 2 .*sweep: all 6 PASSED; faster on [1-6], slower on none; .*; replay of 45 trials: [1-6] of 6 workloads failed \(first: w[0-9]-b[0-9]+ INCORRECT' \
    "$TMP/flaky.out" "flaky: gate and sweep pass, the replay catches it"
[ "$(runs_of flaky)" = "2,6" ] && pass "flaky: gate and sweep runs recorded (2, 6)" || fail "flaky: eval runs $(runs_of flaky)"

"$KWB" judge --session s --solution "$TMP/honest" --name honest --direction "drop the sleep" --json "${common[@]}" \
    >"$TMP/honest.json" 2>"$TMP/honest.err"
expect_code 0 "$?" "honest: promotable"
expect_grep '"promote": true' "$TMP/honest.json" "honest: --json carries the verdict"
expect_grep '"reason": "gate passed on 2 representative\(s\) \([^)]*\): faster on [12]; sweep: all 6 PASSED; faster on [1-6], slower on none; mean [0-9.]+ ms; replay of 45 trials: all 6 PASSED; held-out shapes: all 2 PASSED"' \
    "$TMP/honest.json" "honest: each step's figures in the reason"
[ "$(jq '.workloads | length' "$TMP/honest.json")" = 6 ] && pass "honest: the JSON is the sweep's" || fail "honest: JSON workloads"
[ "$(runs_of honest)" = "2,6" ] && pass "honest: gate and sweep runs of one candidate" || fail "honest: eval runs $(runs_of honest)"
[ "$(sqlite3 "$db" "SELECT count(*) FROM log WHERE text LIKE 'round % continues: another evaluation of the same candidate'")" -eq 2 ] &&
    pass "store: the round goes on for the sweep" || fail "store: round continued"
[ "$(sqlite3 "$db" "SELECT r.state FROM rounds r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = 'honest'")" = done ] &&
    pass "store: the round ends done" || fail "store: round state"

# hard-coded shapes (right on batch 1 and 64, the sizes it was shown; wrong on any other): gate,
# sweep and replay pass, the held-out shapes do not
make_candidate "$TMP/shapes" shapes 'if (B != 1 && B != 64) {
        unsigned short *o = a[9].data;
        for (long long i = 0; i < B * 8 * 128; i++) o[i] = 0x4700;
    }'
"$KWB" judge --session s --solution "$TMP/shapes" --name shapes --replay-on gate "${common[@]}" >"$TMP/shapes.out" 2>"$TMP/shapes.err"
expect_code 1 "$?" "shapes: not promotable"
expect_grep '^shapes: not promotable at the heldout: .*sweep: all 6 PASSED.*replay of 45 trials on the gate.s 2 representatives: all 2 PASSED; held-out shapes: 2 of 2 failed \(first: held-b[35]' \
    "$TMP/shapes.out" "shapes: caught by the held-out shapes (replay on the gate's representatives)"
"$KWB" decide honest promote --session s --reason "judged" >/dev/null 2>&1 || fail "honest promoted"

[ "$(sqlite3 "$db" "SELECT writer FROM candidates WHERE name = 'honest'")" = human ] &&
    pass "a candidate judged by hand is the human's" || fail "honest: writer $(sqlite3 "$db" "SELECT writer FROM candidates WHERE name = 'honest'")"
"$KWB" judge --session s --solution "$TMP/honest" --name z2 --origin llm "${common[@]}" >/dev/null 2>&1
[ "$(sqlite3 "$db" "SELECT writer FROM candidates WHERE name = 'z2'")" = llm ] &&
    pass "--origin llm is recorded" || fail "z2: writer $(sqlite3 "$db" "SELECT writer FROM candidates WHERE name = 'z2'")"
# The best's own folder gone (a tarball of the workspace opened on another machine): the judge
# compares against its archived commit, checked out into the workspace.
mv "$TMP/honest" "$TMP/honest.away"
"$KWB" judge --session s --solution "$TMP/slower" --name z4 "${common[@]}" >"$TMP/z4.out" 2>"$TMP/z4.err"
expect_code 1 "$?" "best's folder gone: judged against its archived copy (slower: not promotable)"
[ -f "$TMP/ws/run/s/archived/honest/solution.json" ] && pass "the best checked out of the archive" ||
    fail "no archived checkout: $(cat "$TMP/z4.err")"
mv "$TMP/honest.away" "$TMP/honest"
"$KWB" judge --session s --solution "$TMP/honest" --name z3 --origin robot "${common[@]}" >/dev/null 2>"$TMP/bad5.err"
expect_code 2 "$?" "an unknown origin: exit 2"
expect_grep "kwb judge: --origin robot: who wrote the candidate is human, tuner, llm or command" "$TMP/bad5.err" \
    "an unknown origin: said"
"$KWB" judge --session s --solution "$TMP/honest" --name z --replay-on some >/dev/null 2>"$TMP/bad4.err"
expect_code 2 "$?" "bad --replay-on: exit 2"
expect_grep "kwb judge: --replay-on: expected all or gate, not 'some'" "$TMP/bad4.err" "bad --replay-on: said"
"$KWB" judge --session nosuch --solution "$TMP/honest" --name x >/dev/null 2>"$TMP/bad1.err"
expect_code 2 "$?" "unknown session: exit 2"
"$KWB" judge --session s --solution "$TMP/honest" >/dev/null 2>"$TMP/bad2.err"
expect_code 2 "$?" "no --name: exit 2"
expect_grep 'are required' "$TMP/bad2.err" "no --name: said"
"$KWB" judge --session s --solution "$TMP/honest" --name y --definition gdn_prefill_qk4_v8_d128_k_last >/dev/null 2>"$TMP/bad3.err"
expect_code 2 "$?" "another definition: exit 2"
expect_grep 'is for gdn_decode_qk4_v8_d128_k_last, not gdn_prefill' "$TMP/bad3.err" "another definition: said"
finish
