#!/bin/bash
# No trace of the API key after agent runs with a known fake key: not in the store file, the
# run's output and logs, the candidate archive (every object and every patch), the run folders
# (prompts, transcripts, candidates, agent logs) nor any report format. Runs: the key from the
# environment (a promoted candidate, then a failed call whose error comes back from the server),
# the key from a 0600 configuration file; a 0644 file holding a key is refused without showing it.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"

{
    echo "scripted answers for agent_secrets.sh"
    echo "=== text"
    good_edit
    printf '=== status 400 type=invalid_request_error\nbad request\n'
    echo "=== text"
    good_edit
} >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.price fake-model 1 1"
OPENAI_API_KEY="$FAKE_KEY" kwb_run env openai 2
expect_code 0 "$RUN_CODE" "key from the environment: the run ends normally"
expect_grep 'round 2: r2-agenttest-[a-z]+ promoted' "$TMP/env.err" "key from the environment: a candidate promoted"
expect_grep 'round 3: .*the agent failed: .*400' "$TMP/env.err" "key from the environment: the failed call is said"

agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.api_key $FAKE_KEY"
kwb_run file openai 1
expect_code 0 "$RUN_CODE" "key from a 0600 file: the run ends normally"
expect_grep 'round 2: r2-agenttest-[a-z]+ (promoted|rejected)' "$TMP/file.err" "key from a 0600 file: the call went through"
[ "$(grep -c '"key":"ok"' "$TMP/fake.log")" = 3 ] && pass "the server got the key three times" || fail "keys at the server"

chmod 644 "$KWB_AGENT_CONFIG"
kwb_run open openai 1
expect_grep 'chmod 600' "$TMP/open.err" "a 0644 file holding a key is refused"

"$KWB" log env >"$TMP/log.out" 2>&1
"$KWB" sessions >"$TMP/sessions.out" 2>&1
for f in md csv json traces html; do
    "$KWB" report env --format $f --output "$TMP/report.$f" >/dev/null 2>>"$TMP/report.err"
done
expect_grep 'agenttest' "$TMP/report.md" "the report covers the agent's rounds"
cand=$(sed -n 's/.*round 2: \(r2-agenttest-[a-z]*\) promoted.*/\1/p' "$TMP/env.err")
"$KWB" show "$cand" --session env >"$TMP/show.out" 2>&1
expect_grep 'LANES 8' "$TMP/show.out" "kwb show has the agent's diff"
git -C "$TMP/ws/candidates.git" log -p --all >"$TMP/archive-log.txt" 2>&1
git -C "$TMP/ws/candidates.git" cat-file --batch-all-objects --batch >"$TMP/archive-objects.txt" 2>&1
expect_grep 'LANES 8' "$TMP/archive-log.txt" "the archive holds the agent's candidate (sanity)"
grep -a -q 'agent_calls' "$TMP/ws/kwb.db" && pass "the store file is readable as bytes (sanity)" || fail "store file"

grep -q -F -- "$FAKE_KEY" "$KWB_AGENT_CONFIG" && pass "the search finds the key where it is (control)" || fail "control"
hits=$(grep -r -a -l -F -- "$FAKE_KEY" "$TMP/ws" "$TMP"/*.out "$TMP"/*.err "$TMP"/report.* "$TMP"/archive-*.txt 2>/dev/null)
[ -z "$hits" ] && pass "no trace of the key in the store, logs, archive, run folders or reports" ||
    fail "the key is in: $hits"
# the key's distinctive middle, in case something cut or re-encoded it
hits=$(grep -r -a -l -F -- "Z9Q8W7E6R5" "$TMP/ws" "$TMP"/*.out "$TMP"/*.err "$TMP"/report.* "$TMP"/archive-*.txt 2>/dev/null)
[ -z "$hits" ] && pass "no part of the key either" || fail "part of the key is in: $hits"
ls "$TMP/ws/run/env/"*.transcript.jsonl >/dev/null 2>&1 && pass "transcripts were written (and searched)" || fail "no transcripts"
finish
