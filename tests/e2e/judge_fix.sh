#!/bin/bash
# kwb judge --fixes: a correctness fix is judged by what it fixes. The session's best is wrong on
# rare inputs (about one in 60): its own evaluation passed, a replay fails it (the definition asks for
# 45 trials). A candidate right everywhere is promotable with --fixes (the best fails the fix's
# replay, the candidate passes, none more than 5 % slower; it is faster here, by a 25 ms sleep a call
# that it lacks, since equal speeds measured 7-14 % apart on a loaded 2-core machine and 5 ms less on
# a 26 ms call once read as 7.2 % slower), the replays' figures in the reason; a candidate that is as wrong as
# the best is rejected at the fix; a fix much slower than the best is rejected by the fix's rule.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws" KWB_NO_DEFENCES=1 # only the correctness trials see the rare bad outputs
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
make_dataset "$TMP/ds" 1 1 1 64 64 64
sed -i 's/"kwb": {/"kwb": {\n    "replay": {"failure_rate": 0.05, "confidence": 0.9},/' "$TMP/ds/definitions/$DEF.json"
grep -q '"failure_rate": 0.05' "$TMP/ds/definitions/$DEF.json" && pass "dataset: replay asked (45 trials)" || fail "dataset"
rare='unsigned q0 = ((const unsigned short *)a[0].data)[0];
    if (((q0 * 2654435761u) >> 16) % 60 == 0) {
        unsigned short *o = a[9].data;
        for (long long i = 0; i < B * 8 * 128; i++) o[i] = 0x4700;
    }'
make_candidate "$TMP/best" best "usleep(25000); $rare"
make_candidate "$TMP/same" same ''
make_candidate "$TMP/wrong" wrong "usleep(25000); $rare"
make_candidate "$TMP/slow" slow 'usleep(60000);'
common=(--dataset "$TMP/ds" --max-time 0.1 --replay-on gate)
"$KWB" eval --definition "$DEF" --solution "$TMP/best" --session s --name best --dataset "$TMP/ds" --max-time 0.1 >"$TMP/best.out" 2>&1
expect_code 0 "$?" "best: its own evaluation passes"
"$KWB" decide best promote --session s --reason "start" >/dev/null 2>&1 || fail "best promoted"

"$KWB" judge --session s --solution "$TMP/same" --name same-fix --fixes w "${common[@]}" >"$TMP/fix.out" 2>"$TMP/fix.err"
expect_code 0 "$?" "the same candidate with --fixes: promotable"
expect_grep '^same-fix: promotable at the end: a fix: the replay of 45 trials on w fails the best on [1-6] of 6 workloads \(first: w[0-5]-b[0-9]+ INCORRECT[^)]*\), the candidate on none; .*a fix: at most [0-9.]+% slower than the best \(5% allowed\)' \
    "$TMP/fix.out" "with --fixes: both replays' figures and the fix's rule in the reason"

"$KWB" judge --session s --solution "$TMP/wrong" --name wrong-fix --fixes w "${common[@]}" >"$TMP/wrong.out" 2>"$TMP/wrong.err"
expect_code 1 "$?" "a candidate as wrong as the best: not promotable"
expect_grep '^wrong-fix: not promotable at the fix: not a fix: the replay of 45 trials on w fails [1-6] of 6 workloads' \
    "$TMP/wrong.out" "not a fix: rejected at the fix, before the gate"
n=$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = 'wrong-fix'")
[ "$n" = 0 ] && pass "not a fix: nothing recorded" || fail "not a fix: $n eval runs"

"$KWB" judge --session s --solution "$TMP/slow" --name slow-fix --fixes w "${common[@]}" >"$TMP/slow.out" 2>"$TMP/slow.err"
expect_code 1 "$?" "a fix twice as slow: not promotable"
expect_grep 'not promotable at the (gate|sweep): a fix: .*a fix, but [0-9.]+% slower than the best on a workload \(at most 5% allowed\)' \
    "$TMP/slow.out" "a slow fix: the fix's rule names the slowdown"

"$KWB" judge --session s --solution "$TMP/same" --name bad --fixes 2>"$TMP/usage.err" >/dev/null
expect_code 2 "$?" "--fixes without a filter: usage error"

# A best that fails a recorded check (its own replay, kwb eval --candidate) puts the directions
# that fix ("applies: failing") first, saying what the best fails; a passing best puts them last.
mkdir -p "$TMP/skills"
cat >"$TMP/skills/general.md" <<'SKILL'
---
skill: t
title: T
---
## fix
```kwb-direction
id: t.fix
title: Fix the rare wrong output
applies: failing
scope: kernels/**
```
Fix.
## speed
```kwb-direction
id: t.speed
title: Go faster
applies: any
scope: kernels/**
```
Speed.
SKILL
KWB_SKILLS="$TMP/skills" "$KWB" propose --session s --agent command >"$TMP/prop1.out" 2>&1
expect_code 0 "$?" "propose: a best that passed what was recorded"
[ "$(grep -oE 't\.(fix|speed)' "$TMP/prop1.out" | head -1)" = t.speed ] && pass "propose: a passing best, the fix last" ||
    fail "propose: $(cat "$TMP/prop1.out")"
"$KWB" eval --session s --candidate best --workloads w --trials 45 --dataset "$TMP/ds" --max-time 0.01 --quiet \
    >"$TMP/replay.out" 2>&1
code=$?
expect_code 1 "$code" "the best's own replay of 45 trials fails, recorded"
[ "$code" = 1 ] || sed 's/^/    /' "$TMP/replay.out"
KWB_SKILLS="$TMP/skills" "$KWB" propose --session s --agent command >"$TMP/prop2.out" 2>&1
[ "$(grep -oE 't\.(fix|speed)' "$TMP/prop2.out" | head -1)" = t.fix ] && pass "propose: a failing best, the fix first" ||
    fail "propose: $(cat "$TMP/prop2.out")"
expect_grep 'the best fails a check \(INCORRECT_[A-Z]+ on workload w[0-5]-b[0-9]+ \(45 trials\)\)' "$TMP/prop2.out" \
    "propose: the rationale says what the best fails"
finish
