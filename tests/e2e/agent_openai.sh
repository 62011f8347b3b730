#!/bin/bash
# kwb run --agent openai --auto against the fake model server (tests/fake_llm) on the CPU demo:
# a 429 with retry-after is retried and shown; the good SEARCH/REPLACE edit becomes a candidate
# that is evaluated and promoted; a stream cut in the middle is retried and the whole-file answer
# that follows is applied; every call is a row in the store with tokens and cost; the full
# request and response are kept in the round's transcript; the prompt holds the guidance, the
# reference hit, the kernel, the definition and the per-workload table.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"

whole=$(sed 's/^#define LANES 1 /#define LANES 8 /; s/^#define MAX_THREADS 8 /#define MAX_THREADS 4 /' "$TMP/start/gdn_decode_fast.c")
{
    echo "scripted answers for agent_openai.sh"
    echo "=== status 429 retry_after=1 type=rate_limit_error code=rate_limit_exceeded"
    echo "Rate limit reached for requests"
    echo "=== text in=1200 out=300"
    good_edit
    echo "=== cut after=3"
    echo "This answer is cut in the middle and must never be applied: gdn_decode_fast.c"
    echo "=== text comments"
    printf 'The whole file with fewer threads:\n\n```c gdn_decode_fast.c\n%s\n```\n' "$whole"
} >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test" \
    "set agent.retry_base 0.05" "set agent.price fake-model 2.5 10"
export OPENAI_API_KEY="$FAKE_KEY"
kwb_run oa openai 2
expect_code 0 "$RUN_CODE" "two rounds with the openai agent"
err="$TMP/oa.err"
expect_grep 'agent: retry 1/[0-9]+ in [0-9.]+ s: HTTP 429' "$err" "the 429 is retried and shown"
expect_grep '^kwb run: round 2: agenttest\.[a-z]+: .*\(agent openai\)' "$err" "round 2: a skill direction for the agent"
expect_grep 'agent reconnaissance: [1-9][0-9]* hit\(s\) in [0-9]+ file\(s\); consulted: .*/refs' "$err" "reconnaissance consulted the skill's references"
expect_grep "agent reconnaissance: .*; best hits: .*/refs/wide_dot\\.c:[0-9]+" "$err" "the best hits are shown"
expect_grep '^\+#define LANES 8 ' "$err" "the candidate's diff is shown"
expect_grep 'round 2: r2-agenttest-[a-z]+ promoted at the end: .*sweep: all 7 PASSED' "$err" "the agent's candidate is evaluated and promoted"
expect_grep 'agent call: openai fake-model, tokens 1200 in / 300 out, \$0\.0060, [0-9.]+ s, 2 attempt\(s\), ok' "$err" \
    "the first call: tokens and cost from the price table, two attempts"
expect_grep '^\+#define MAX_THREADS 4 ' "$err" "round 3: the whole-file answer after the cut stream is the candidate"
expect_grep 'agent call: openai fake-model, tokens 11 in / 7 out, .*, 2 attempt\(s\), ok' "$err" \
    "the cut stream is retried from the start"
if grep -rq 'must never be applied' --include='*.c' "$TMP/ws/run/oa"; then fail "cut text in a candidate"; else
    pass "the cut text is in no candidate"; fi
expect_grep '^kwb run: [0-9]+ candidate\(s\) promoted' "$err" "the run ends normally"

[ "$(sql "SELECT count(*) FROM agent_calls WHERE provider = 'openai' AND status = 'ok'")" = 2 ] &&
    pass "store: two agent calls" || fail "store: agent calls: $(sql 'SELECT * FROM agent_calls')"
[ "$(sql "SELECT tokens_in || '/' || tokens_out FROM agent_calls ORDER BY id LIMIT 1")" = "1200/300" ] &&
    pass "store: tokens per call" || fail "store: tokens"
[ "$(sql "SELECT cost > 0.0059 AND cost < 0.0061 FROM agent_calls ORDER BY id LIMIT 1")" = 1 ] &&
    pass "store: cost per call" || fail "store: cost"
[ "$(sql "SELECT count(*) FROM notes WHERE text LIKE 'agent reconnaissance: % consulted: %/refs%'")" = 2 ] &&
    pass "store: each round notes the references it consulted" || fail "store: reconnaissance notes"
[ "$(sql "SELECT group_concat(DISTINCT writer) FROM candidates c JOIN sessions s ON s.id = c.session_id WHERE s.name = 'oa' AND c.parent_id IS NOT NULL")" = llm ] &&
    pass "store: the model's candidates are 'llm'" || fail "store: origins $(sql 'SELECT name, writer FROM candidates')"
[ "$(sql "SELECT count(*) FROM directions WHERE skill = 'agenttest' AND state != 'proposed'")" -ge 2 ] &&
    pass "store: the skill directions are decided" || fail "store: directions"

t1=$(ls "$TMP/ws/run/oa/"r2-*.transcript.jsonl 2>/dev/null | head -1)
[ -s "$t1" ] && pass "round 2 keeps a transcript" || fail "no transcript for round 2"
expect_grep '"kind":"prompt".*"references_consulted":"[^"]*/refs"' "$t1" "the transcript records the references consulted"
expect_grep '"kind":"call".*"request":"\{.*\\"messages\\"' "$t1" "the transcript keeps the full request"
expect_grep '"kind":"call".*"response":"[^"]*data: ' "$t1" "the transcript keeps the raw response"
expect_grep '"kind":"edits","outcome":"applied"' "$t1" "the transcript records the edits' outcome"
t2=$(ls "$TMP/ws/run/oa/"r3-*.transcript.jsonl 2>/dev/null | head -1)
expect_grep 'replaced as a whole file' "$t2" "round 3: the whole-file fallback"

# what the model was sent: first request of the log
head -1 "$TMP/fake.log" >"$TMP/req1"
expect_grep '"key":"ok"' "$TMP/req1" "the key was sent (and accepted)"
expect_no_grep "$FAKE_KEY" "$TMP/fake.log" "the server's log has no key (sanity)"
for want in 'Raise LANES so that the dot products' 'wide_dot\.c:[0-9]+' '#define LANES 1 +/\* kwb:tune' \
    '\\"reference\\"' 'median_ms' 'batch_size=16  PASSED' 'bottleneck and regimes: batch_size' 'SEARCH/REPLACE' \
    '"model":"gpt-test"'; do
    expect_grep "$want" "$TMP/req1" "the prompt holds /$want/"
done
sed -n 3p "$TMP/fake.log" >"$TMP/req2"   # 1: the 429, 2: round 2, 3: round 3
expect_grep 'earlier directions of this session:.*agenttest\.[a-z]+: accepted: .*sweep: all 7 PASSED' "$TMP/req2" \
    "round 3's prompt lists round 2's outcome"
stop_fake

# the shipped skills (skills/*.md) rank the direction on the CPU demo
{ echo "=== text"; good_edit; } >"$TMP/script2"
start_fake "$TMP/script2"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1"
KWB_SKILLS= kwb_run shipped openai 1
expect_code 0 "$RUN_CODE" "shipped skills: one round"
expect_grep '^kwb run: round 2: (gdn|general)\.[a-z0-9.-]+: .*\(agent openai\)' "$TMP/shipped.err" "shipped skills: a ranked skill direction"
expect_grep 'round 2: r2-(gdn|general)-[a-z0-9-]+ promoted' "$TMP/shipped.err" "shipped skills: the candidate is promoted"
"$KWB" log oa >"$TMP/log.out" 2>&1
expect_grep 'agenttest\.' "$TMP/log.out" "kwb log names the agent's directions"
finish
