#!/bin/bash
# kwb run --agent command --auto with a fake CLI agent (tests/fixtures/agents/fake_agent.sh): the
# configured argv reaches it as written (no shell), the prompt comes on stdin, it runs in a scratch
# copy, and what it changed is the candidate: a good change is evaluated and promoted, a new
# header in the scope is accepted; changes outside the scope, to solution.json, a removed file, a
# symlink, a failing exit, no change at all and a hang past the time limit each fail their round
# with a clear error while the session goes on.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"

export FAKE_AGENT_STATE="$TMP/agent-state" FAKE_AGENT_PLAN="good outside json remove link fail nothing sleep header"
agent_config "set agent.command.command $AGENT_FIX/fake_agent.sh exec --label \"two words\" 'it''s;\$(rm -rf /)'" \
    "set agent.command.command_timeout 2"
kwb_run cmd command 9
expect_code 0 "$RUN_CODE" "nine rounds with the command agent"
err="$TMP/cmd.err"
expect_grep 'agent: command: .*fake_agent\.sh \(in a scratch copy, limit 2 s\)' "$err" "the command is announced"
expect_grep 'round 2: r2-agenttest-[a-z]+ promoted at the end: .*sweep: all 7 PASSED' "$err" "round 2: the good change is promoted"
expect_grep 'agent: command agent changed: gdn_decode_fast\.c' "$err" "round 2: the changed file is named"
expect_grep "round 3: agenttest\.[a-z]+: the agent failed: the command agent's changes are refused: 'notes\.txt': outside the direction's scope \(editable: gdn_decode_fast\.c, \*\.h\)" \
    "$err" "round 3: a file outside the scope is refused"
expect_grep "round 4: .*the agent failed: .*'solution\.json': the solution's description is kwb's" "$err" \
    "round 4: solution.json is refused"
expect_grep "round 5: .*the agent failed: .*'gdn_decode_fast\.c': removed" "$err" "round 5: a removed file is refused"
expect_grep "round 6: .*the agent failed: .*'secrets\.h' is a symlink" "$err" "round 6: a symlink is refused"
expect_grep 'round 7: .*the agent failed: command agent .*fake_agent\.sh ended with exit code 3; last lines of .*: .*fake agent: model refused' \
    "$err" "round 7: a failing exit is reported with its log's tail"
expect_grep 'round 8: .*the agent failed: the command agent changed nothing' "$err" "round 8: no change"
expect_grep 'round 9: .*the agent failed: command agent .*fake_agent\.sh: no result within 2 s \(killed\)' "$err" \
    "round 9: the time limit kills a hanging agent"
expect_grep 'round 10: r10-agenttest-[a-z]+: measured' "$err" "round 10: a new header in the scope is accepted and evaluated"
expect_grep '^\+\+\+ b/lanes\.h' "$err" "round 10: the new file is in the diff"
expect_grep '^kwb run: [0-9]+ candidate\(s\) promoted' "$err" "the session goes on to its end"
# the sleeping agent (60 s) is killed at its 2 s limit: no recorded call lasts anywhere near 60 s
# the command agent's candidates are recorded as its, and the HTML report says so
[ "$(sqlite3 "$TMP/ws/kwb.db" "SELECT group_concat(DISTINCT coalesce(writer, origin)) FROM candidates WHERE name LIKE 'r%-agenttest-%'")" = command ] &&
    pass "store: the command agent's candidates are 'command'" || fail "store: origins $(sqlite3 "$TMP/ws/kwb.db" "SELECT name, writer FROM candidates")"
"$KWB" report cmd --format html --output "$TMP/cmd.html" >/dev/null 2>&1
expect_grep '<td>r2-agenttest-[a-z]+</td><td class="num">[0-9]+</td><td>command</td>' "$TMP/cmd.html" \
    "report: a command agent's candidate is named so"
longest=$(sqlite3 "$TMP/ws/kwb.db" "SELECT max(duration_s) FROM agent_calls")
awk -v d="$longest" 'BEGIN { exit !(d != "" && d < 10) }' && pass "the hanging agent did not hold the run (longest call $longest s)" ||
    fail "the hanging agent held the run: longest call ${longest:-none} s"
[ "$(cat "$FAKE_AGENT_STATE")" = 9 ] && pass "the agent ran once per round" || fail "agent calls: $(cat "$FAKE_AGENT_STATE")"
printf 'exec\n--label\ntwo words\nits;$(rm -rf /)\n' >"$TMP/want-args"
cmp -s "$TMP/want-args" "$FAKE_AGENT_STATE.args.1" && pass "argv as configured, no shell" ||
    fail "argv: $(cat "$FAKE_AGENT_STATE.args.1")"
expect_grep 'Raise LANES so that the dot products' "$FAKE_AGENT_STATE.prompt.1" "the prompt came on stdin"
expect_grep '#define LANES 1 ' "$FAKE_AGENT_STATE.prompt.1" "the prompt holds the kernel"
[ -f "$FAKE_AGENT_STATE.git.1" ] && [ ! -s "$FAKE_AGENT_STATE.git.1" ] &&
    pass "the scratch copy is a clean git repository" || fail "git status in the scratch copy: $(cat "$FAKE_AGENT_STATE.git.1")"
ls "$TMP/ws/run/cmd" >"$TMP/folders"
expect_no_grep '\.work$' "$TMP/folders" "no scratch copy left behind"
[ -d "$(ls -d "$TMP/ws/run/cmd/"r3-* 2>/dev/null | grep -v '\.' | head -1)" ] && fail "a refused candidate's folder is left" ||
    pass "a refused candidate leaves no folder"
expect_grep 'fake agent call 6: fail' "$(ls "$TMP/ws/run/cmd/"r7-*.agent.log)" "the agent's output is kept in the round's log"
[ "$(sql "SELECT count(*) FROM agent_calls WHERE provider = 'command' AND tokens_in = -1")" = 9 ] &&
    pass "store: one call row per round, tokens unknown (-1)" || fail "store: $(sql 'SELECT count(*) FROM agent_calls')"

# human mode: decline the first direction, accept the next, decline its candidate at review
rm -f "$FAKE_AGENT_STATE"
export FAKE_AGENT_PLAN="good"
printf 'n\ny\nn\n' | "$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.3 --solution "$TMP/start" \
    --session human --agent command --rounds 1 >"$TMP/human.out" 2>"$TMP/human.err"
expect_code 0 "$?" "human mode: one round"
expect_grep 'accept this direction\? \[y\]es / \[n\]o / \[q\]uit n$' "$TMP/human.err" "human mode: a direction is declined"
expect_grep 'build and evaluate it\? \[y\]es / \[n\]o n$' "$TMP/human.err" "human mode: the candidate is shown for review"
[ "$(sql "SELECT group_concat(d.reason, ',') FROM decisions d JOIN sessions s ON s.id = d.session_id WHERE s.name = 'human' AND d.direction_id IS NOT NULL")" = \
    "declined by the human,candidate declined at review" ] && pass "human mode: both decisions recorded" ||
    fail "human mode: $(sql "SELECT reason FROM decisions")"
[ "$(cat "$FAKE_AGENT_STATE")" = 1 ] && pass "human mode: the agent ran for the accepted direction only" || fail "human mode: agent runs"

# the workbench: kwb tui's child kwb write writes into NAME.part, which the engine renames to NAME;
# the agent's log and prompt are named for the candidate NAME, not for its .part folder
rm -f "$FAKE_AGENT_STATE"
export FAKE_AGENT_PLAN="good"
printf '<Enter>\n:dump-model %s\n' "$TMP/tui.model" >"$TMP/tui.script"
KWB_SCRIPT="$TMP/tui.script" timeout 300 "$KWB" tui --session tui --definition "$DEF" --solution "$TMP/start" \
    --workloads batch_size=16 --max-time 0.3 --agent command >"$TMP/tui.out" 2>"$TMP/tui.err"
expect_code 0 "$?" "tui: a direction chosen and written by the command agent"
expect_grep '^step review' "$TMP/tui.model" "tui: the candidate is under review"
cand=$(sed -n 's/^candidate //p' "$TMP/tui.model")
[ -d "$TMP/ws/run/tui/$cand" ] && [ -s "$TMP/ws/run/tui/$cand.agent.log" ] && [ -s "$TMP/ws/run/tui/$cand.prompt.md" ] &&
    pass "tui: the agent's log and prompt are named for the candidate ($cand)" ||
    fail "tui: the agent's files for '$cand': $(ls "$TMP/ws/run/tui" | tr '\n' ' ')"
ls "$TMP/ws/run/tui" >"$TMP/tui.files"
expect_no_grep '\.part' "$TMP/tui.files" "tui: no file is named for the .part folder"
finish
