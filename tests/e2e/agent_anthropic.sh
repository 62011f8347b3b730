#!/bin/bash
# kwb run --agent anthropic --auto against the fake model server: the Messages API (x-api-key,
# anthropic-version, top-level system, max_tokens); an error event in the middle of the stream
# (overloaded) is retried and the good edit that follows, streamed with CRLF, keep-alive comments
# and pings, is promoted; a 529 is retried and the unified diff after it is applied; calls,
# tokens and cost in the store; the transcript kept with the round.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"

{
    echo "scripted answers for agent_anthropic.sh"
    echo "=== error after=2 type=overloaded_error"
    echo "Half an answer, then the server is overloaded."
    echo "=== text crlf comments model=claude-fake in=2000 out=500"
    good_edit
    echo "=== status 529 type=overloaded_error retry_after=1"
    echo "Overloaded"
    echo "=== text model=claude-fake"
    printf 'As a diff:\n\n```diff\n--- a/gdn_decode_fast.c\n+++ b/gdn_decode_fast.c\n@@ -30,1 +30,1 @@\n'
    grep '^#define MAX_THREADS 8 ' "$TMP/start/gdn_decode_fast.c" | sed 's/^/-/'
    grep '^#define MAX_THREADS 8 ' "$TMP/start/gdn_decode_fast.c" | sed 's/^/+/; s/MAX_THREADS 8 /MAX_THREADS 2 /'
    printf '```\n'
    printf '=== text model=claude-fake\nA new header:\n\nnotes.h\n<<<<<<< SEARCH\n=======\n#define NOTE 1\n>>>>>>> REPLACE\n'
} >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.anthropic.base_url http://127.0.0.1:$FAKE_PORT" "set agent.anthropic.model claude-test" \
    "set agent.anthropic.max_tokens 4000" "set agent.retry_base 0.05" "set agent.price claude-fake 3 15"
export ANTHROPIC_API_KEY="$FAKE_KEY"
kwb_run an anthropic 2
expect_code 0 "$RUN_CODE" "two rounds with the anthropic agent"
err="$TMP/an.err"
expect_grep 'agent: retry 1/[0-9]+ in [0-9.]+ s: .*overloaded' "$err" "the mid-stream error event is retried and shown"
expect_grep 'agent call: anthropic claude-fake, tokens 2000 in / 500 out, \$0\.0135, [0-9.]+ s, 2 attempt\(s\), ok' "$err" \
    "the call's tokens and cost"
expect_grep 'round 2: r2-agenttest-[a-z]+ promoted at the end: .*sweep: all 7 PASSED' "$err" "the edit streamed with CRLF and pings is promoted"
expect_grep 'agent: retry 1/[0-9]+ in [0-9.]+ s: HTTP 529' "$err" "the 529 is retried"
expect_grep '^\+#define MAX_THREADS 2 ' "$err" "round 3: the unified diff is applied"
[ "$(sql "SELECT count(*) FROM agent_calls WHERE provider = 'anthropic' AND model = 'claude-fake' AND status = 'ok'")" = 2 ] &&
    pass "store: two anthropic calls" || fail "store: $(sql 'SELECT * FROM agent_calls')"
head -1 "$TMP/fake.log" >"$TMP/req1"
expect_grep '"path":"/v1/messages"' "$TMP/req1" "Messages API path"
expect_grep '"anthropic-version":"2023-06-01"' "$TMP/req1" "anthropic-version header"
expect_grep '"key":"ok"' "$TMP/req1" "x-api-key accepted"
expect_grep '"body":\{[^}]*"system":"You are a GPU kernel engineer' "$TMP/req1" "top-level system prompt"
expect_grep '"max_tokens":4000' "$TMP/req1" "max_tokens from the configuration"
expect_grep '"model":"claude-test"' "$TMP/req1" "the configured model is asked for"
t1=$(ls "$TMP/ws/run/an/"r2-*.transcript.jsonl 2>/dev/null | head -1)
expect_grep '"kind":"call".*event: message_start' "$t1" "the transcript keeps the raw event stream"

# kwb write with the anthropic agent, events on stdout for the workbench; its call is a row of the store
calls_before=$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM agent_calls")
"$KWB" write --session an --direction agenttest.three --out "$TMP/written" --agent anthropic --events \
    >"$TMP/write.out" 2>"$TMP/write.err"
expect_code 0 "$?" "kwb write --agent anthropic"
expect_grep '"event":"status","text":"anthropic: asking claude-test' "$TMP/write.out" "write: status events"
expect_grep '"event":"text","text":' "$TMP/write.out" "write: the model's text as it streams"
expect_grep '"event":"call"' "$TMP/write.out" "write: the call event"
expect_grep '"event":"done".*\+\+\+ b/notes\.h' "$TMP/write.out" "write: done with the diff"
[ -f "$TMP/written/notes.h" ] && pass "write: the candidate folder has the new file" || fail "write: no notes.h"
[ "$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM agent_calls")" -eq $((calls_before + 1)) ] && [ "$(sqlite3 "$TMP/ws/kwb.db" "SELECT provider FROM agent_calls ORDER BY id DESC LIMIT 1")" = anthropic ] &&
    pass "write: the call is recorded in the store" || fail "write: no agent_calls row for kwb write"
finish
