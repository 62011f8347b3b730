#!/bin/bash
# kwb propose and kwb write, the steps the workbench runs as children: propose lists the
# tuner's untried knob changes of the session's best (table and JSON), leaving out what the
# session decided; write turns one into a new candidate folder with its diff (plain and as
# JSON events); bad directions, an existing folder and a session without a best are clear errors.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
"$KWB" propose --session none >"$TMP/p0.out" 2>&1
expect_code 2 "$?" "propose: no such session"
"$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --session s --name start --workloads batch_size=16 \
    --max-time 0.1 --quiet >/dev/null 2>"$TMP/eval.err"
"$KWB" propose --session s >"$TMP/p1.out" 2>&1
expect_code 1 "$?" "propose: nothing promoted yet"
expect_grep 'no promoted candidate' "$TMP/p1.out" "propose: says why"
"$KWB" decide start promote --session s --reason start >/dev/null 2>&1 || fail "decide"
"$KWB" propose --session s --limit 2 >"$TMP/p2.out" 2>&1
expect_code 0 "$?" "propose: table"
expect_grep '^ 1\. tune\.LANES=16 +tuner' "$TMP/p2.out" "propose: nearest value of the first knob first"
expect_grep '^ 2\. tune\.LANES=4 ' "$TMP/p2.out" "propose: then the other neighbour"
expect_grep '^session s \(gdn_decode_qk4_v8_d128_k_last\); best start' "$TMP/p2.out" "propose: the best named"
"$KWB" propose --session s --json >"$TMP/p3.json" 2>&1
expect_code 0 "$?" "propose: json"
[ "$(grep -c '"id": "tune\.' "$TMP/p3.json")" -ge 6 ] &&
    pass "propose: every untried knob value" || fail "propose: json directions"
expect_grep '"class": "' "$TMP/p3.json" "propose: json carries the class"

"$KWB" write --session s --direction tune.LANES=4 --out "$TMP/c1" >"$TMP/w1.diff" 2>"$TMP/w1.err"
expect_code 0 "$?" "write: tuner"
expect_grep '^\+#define LANES 4 ' "$TMP/w1.diff" "write: the diff"
grep -q '^#define LANES 4 ' "$TMP/c1/gdn_decode_fast.c" && pass "write: the folder" || fail "write: the folder"
[ -f "$TMP/c1/solution.json" ] && pass "write: solution.json copied" || fail "write: solution.json"
"$KWB" write --session s --direction tune.LANES=2 --out "$TMP/c2" --events >"$TMP/w2.jsonl" 2>&1
expect_code 0 "$?" "write: events"
expect_grep '^\{"event":"status","text":"tuner: set LANES 8 -> 2"\}$' "$TMP/w2.jsonl" "write: a status event"
expect_grep '^\{"event":"done","dir":"[^"]*/c2",.*"diff":"--- a/gdn_decode_fast.c' "$TMP/w2.jsonl" "write: the done event"
"$KWB" write --session s --direction tune.LANES=2 --out "$TMP/c2" >"$TMP/w3.out" 2>&1
expect_code 1 "$?" "write: existing folder"
expect_grep 'already exists' "$TMP/w3.out" "write: says the folder exists"
"$KWB" write --session s --direction tune.LANES=3 --out "$TMP/c3" >"$TMP/w4.out" 2>&1
expect_code 1 "$?" "write: undeclared value"
expect_grep 'not among knob LANES' "$TMP/w4.out" "write: names the knob"
[ ! -e "$TMP/c3" ] && pass "write: nothing half-written" || fail "write: c3 left behind"
"$KWB" write --session s --direction no.such --out "$TMP/c4" --events >"$TMP/w5.out" 2>/dev/null
expect_code 2 "$?" "write: unknown direction"
expect_grep '"event":"error","message":"no direction' "$TMP/w5.out" "write: error event"
"$KWB" write --session s --out "$TMP/c5" >"$TMP/w6.out" 2>&1
expect_code 2 "$?" "write: --direction required"

# a decided direction is not proposed again
sqlite3 "$TMP/ws/kwb.db" "INSERT INTO directions (session_id, skill, title, state, created_at) VALUES (1, 'tuner', 'tune.LANES=16', 'rejected', 0)"
"$KWB" propose --session s --limit 1 >"$TMP/p4.out" 2>&1
expect_grep '^ 1\. tune\.LANES=4 ' "$TMP/p4.out" "propose: a decided direction is left out"
[ "$failures" -eq 0 ]
