#!/bin/bash
# kwb run killed (kill -9, with its children) in the middle of a judge resumes there: once during
# the start's evaluation (round 1) and once during round 2's gate. The next kwb run of the session
# judges the undecided candidate again (kwb eval --candidate: no "File exists", no second start),
# decides it and goes on; the store ends with every candidate decided and one start. A run stopped
# at a verdict resumes at that verdict, recorded in the store, without judging again.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tui_lib.sh" # descendants
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
cp -r "$KERNELS/fast" "$TMP/start"
sed -i 's/^#define LANES 8 /#define LANES 1 /' "$TMP/start/gdn_decode_fast.c"
db="$TMP/ws/kwb.db"
: >"$TMP/sql.err"
# sql QUERY: its answer; waits out a writer's lock (a bare sqlite3 answers nothing while kwb writes)
sql() { sqlite3 -cmd '.timeout 10000' "$db" "$1" 2>>"$TMP/sql.err"; }
run() {
    "$KWB" run --definition "$DEF" --solution "$TMP/start" --session s --workloads batch_size=16 --max-time 0.3 \
        --auto "$@"
}
# kill_when SQL: starts kwb run in the background, kills it and its children once SQL counts > 0
kill_when() {
    run --rounds 2 >/dev/null 2>"$TMP/killed.err" &
    local pid=$! i
    for i in $(seq 1500); do
        [ "$(sql "$1")" -gt 0 ] 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break # the run ended before the condition held
        sleep 0.2
    done
    local kids
    kids=$(descendants "$pid")
    kill -9 "$pid" $kids 2>/dev/null
    wait "$pid" 2>/dev/null
}

# 1. killed while the start is being evaluated
kill_when "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = 'start'"
[ "$(sql "SELECT state FROM candidates WHERE name = 'start'")" != promoted ] &&
    pass "killed in round 1: the start is undecided" || fail "killed too late: the start is decided"
run --rounds 1 >/dev/null 2>"$TMP/r1.err"
expect_code 0 "$?" "resumed after a kill in round 1"
expect_grep 'resuming: start \(round 1\) is judged again' "$TMP/r1.err" "round 1: the start's judge resumed"
expect_no_grep 'File exists' "$TMP/r1.err" "round 1: no stale folder in the way"
[ "$(sql "SELECT count(*) FROM candidates WHERE name = 'start'")" -eq 1 ] &&
    [ "$(sql "SELECT state FROM candidates WHERE name = 'start'")" = promoted ] &&
    pass "one start, promoted" || fail "the start: $(sql "SELECT group_concat(state) FROM candidates WHERE name = 'start'")"

# 2. killed in the middle of a round's judge
n=$(sql "SELECT max(id) FROM candidates")
[ -n "$n" ] || { fail "store unreadable: $(cat "$TMP/sql.err")"; finish; }
kill_when "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.id > $n"
cand=$(sql "SELECT name FROM candidates WHERE id > $n ORDER BY id LIMIT 1")
if [ -n "$cand" ]; then
    pass "killed while judging $cand"
else
    fail "no candidate was being judged"
    sed 's/^/    /' "$TMP/killed.err" "$TMP/sql.err" >&2
fi
run --rounds 1 >/dev/null 2>"$TMP/r2.err"
expect_code 0 "$?" "resumed after a kill in a judge"
expect_grep "resuming: $cand \(round [0-9]+\) is judged again" "$TMP/r2.err" "the judge of $cand resumed"
expect_no_grep 'File exists' "$TMP/r2.err" "no stale folder in the way"
expect_no_grep '^kwb run: start:' "$TMP/r2.err" "the start is not evaluated again"
st=$(sql "SELECT state FROM candidates WHERE name = '$cand'")
[ "$st" = promoted ] || [ "$st" = rejected ] && pass "$cand decided ($st)" || fail "$cand is $st"
[ "$(sql "SELECT count(*) FROM candidates WHERE state IN ('new', 'evaluated')")" -eq 0 ] &&
    pass "no candidate left undecided" || fail "undecided candidates left"

# 3. stopped at the verdict (q; a kill after the verdict leaves the store the same): the next run
# starts at the verdict recorded then and decides on it, without evaluating the candidate again
printf 'y\ny\nq\n' | "$KWB" run --definition "$DEF" --solution "$TMP/start" --session s --workloads batch_size=16 \
    --max-time 0.3 --rounds 1 >/dev/null 2>"$TMP/q.err"
expect_grep 'quit at the verdict on ' "$TMP/q.err" "human mode: stopped at the verdict"
cand=$(sql "SELECT name FROM candidates WHERE state IN ('new', 'evaluated') ORDER BY id DESC LIMIT 1")
runs() { sql "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = '$cand'"; }
before=$(runs)
[ -n "$cand" ] && [ "$(sql "SELECT count(*) FROM verdicts v JOIN candidates c ON c.id = v.candidate_id WHERE c.name = '$cand'")" -ge 1 ] &&
    pass "store: the verdict on $cand is recorded" || fail "store: no verdict recorded on '$cand'"
run --rounds 1 >/dev/null 2>"$TMP/v.err"
expect_code 0 "$?" "resumed after stopping at the verdict"
expect_grep "resuming: $cand \(round [0-9]+\) at the verdict recorded before the stop" "$TMP/v.err" \
    "the run resumes at the recorded verdict on $cand"
[ "$(runs)" = "$before" ] && pass "$cand is not evaluated again ($before eval runs)" ||
    fail "$cand evaluated again: $before -> $(runs) eval runs"
st=$(sql "SELECT state FROM candidates WHERE name = '$cand'")
[ "$st" = promoted ] || [ "$st" = rejected ] && pass "$cand decided on its recorded verdict ($st)" || fail "$cand is $st"

# 4. kill -9 at random points, 20 times over (issue 19 item 2): each next kwb run takes up where
# the last was killed; none is stuck on a folder a killed run left, none evaluates the start again
kills=0
for i in $(seq 20); do
    run --rounds 3 >/dev/null 2>"$TMP/rand.err" &
    pid=$!
    sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.2 + (r % 230) / 100 }')"
    kids=$(descendants "$pid")
    kill -9 "$pid" $kids 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
    if grep -q 'File exists\|already exists' "$TMP/rand.err"; then
        fail "random kill $i: the run before left a folder in the way"
        sed 's/^/    /' "$TMP/rand.err" >&2
    fi
done
pass "$kills of 20 runs killed at a random point"
run --rounds 1 >/dev/null 2>"$TMP/after.err"
expect_code 0 "$?" "after 20 random kills: the next run"
expect_no_grep 'File exists|already exists' "$TMP/after.err" "after 20 random kills: no stale folder"
[ "$(sql "SELECT count(*) FROM candidates WHERE name = 'start'")" -eq 1 ] &&
    pass "after 20 random kills: still one start" || fail "more than one start"
[ "$(sql "SELECT count(*) FROM candidates WHERE state IN ('new', 'evaluated')")" -eq 0 ] &&
    pass "after 20 random kills: no candidate left undecided" || fail "undecided candidates left after the kills"
finish
