#!/bin/bash
# Every bad case of an LLM agent fails its round with a clear error and the session goes on:
# an edit that does not apply (one retry turn with the closest lines, then the error), HTTP 500
# past the retries, a stream cut twice, an error event in the stream twice, exhausted quota (no
# retry), a reply stopped at the output cap with no text, a reply with no edit, a wrong key
# (401, no retry); a spent budget stops the session cleanly with a note (and kwb write asks
# nothing); SIGTERM cancels
# `kwb write --agent openai` in the middle of a slow stream.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"

{
    echo "scripted answers for agent_errors.sh"
    printf '=== text\ngdn_decode_fast.c\n<<<<<<< SEARCH\n#define LANES 3               /* kwb:tune LANES {1,2,4,8,16} */\n=======\n#define LANES 4\n>>>>>>> REPLACE\n'
    printf '=== text\ngdn_decode_fast.c\n<<<<<<< SEARCH\n#define LANES 5 /* still not there */\n=======\n#define LANES 4\n>>>>>>> REPLACE\n'
    printf '=== status 500 type=api_error\nThe server had an error\n=== status 500 type=api_error\nThe server had an error\n'
    printf '=== cut after=2\nnever complete, first\n=== cut after=2\nnever complete, second\n'
    printf '=== error after=1 type=overloaded_error\nhalf\n=== error after=1 type=overloaded_error\nhalf again\n'
    printf '=== status 429 type=insufficient_quota code=insufficient_quota\nYou exceeded your current quota\n'
    printf '=== length\n'
    printf '=== text\nI would vectorize the loop, but I will not say how.\n=== text\nStill no edit.\n'
} >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test" \
    "set agent.max_retries 1" "set agent.retry_base 0.05"
export OPENAI_API_KEY="$FAKE_KEY"
kwb_run bad openai 7
expect_code 0 "$RUN_CODE" "seven failing rounds: the session still ends normally"
err="$TMP/bad.err"
expect_grep 'agent: the edit did not apply: one retry turn with the failure report' "$err" "a failed block gets one retry turn"
expect_grep "round 2: agenttest\.[a-z]+: the agent failed: after one retry turn: 1 of 1 edit block\(s\) did not apply \(search-replace; first: block 1 \(gdn_decode_fast\.c, reply line 2\): no match" \
    "$err" "round 2: the bad edit, named by block and file"
sed -n 2p "$TMP/fake.log" >"$TMP/retry-req"
expect_grep 'Your edit did not apply, so nothing was changed' "$TMP/retry-req" "the retry turn says what happened"
expect_grep 'closest lines in gdn_decode_fast.c \(lines [0-9]+-[0-9]+\)' "$TMP/retry-req" "the retry turn quotes the closest lines"
expect_grep '#define LANES 1 +/\* kwb:tune' "$TMP/retry-req" "the closest line is the real one"
expect_grep '"role":"assistant","content":"gdn_decode_fast.c\\n<<<<<<< SEARCH\\n#define LANES 3' "$TMP/retry-req" \
    "the retry turn carries the model's first answer"
expect_grep 'round 3: .*the agent failed: .*HTTP 500.*(2 attempts|gave up)' "$err" "round 3: HTTP 500 past the retries"
expect_grep 'round 4: .*the agent failed: .*(cut|ended before)' "$err" "round 4: a stream cut twice"
expect_grep 'round 5: .*the agent failed: .*overloaded' "$err" "round 5: an error event in the stream"
expect_grep 'round 6: .*the agent failed: .*quota' "$err" "round 6: exhausted quota"
expect_no_grep 'retry [0-9]+/[0-9]+ in [0-9.]+ s: HTTP 429' "$err" "exhausted quota is not retried"
expect_grep 'round 7: .*the agent failed: .*(length|output cap|truncated)' "$err" "round 7: stopped at the output cap with no text"
expect_grep 'round 8: .*the agent failed: after one retry turn: the reply holds no edit' "$err" "round 8: a reply with no edit"
expect_grep '^kwb run: 0 candidate\(s\) promoted; best start' "$err" "the session went on through every failure"
[ "$(sql "SELECT count(*) FROM decisions WHERE direction_id IS NOT NULL AND reason LIKE 'agent failed: %'")" = 7 ] &&
    pass "store: seven directions rejected with the agent's error" || fail "store: directions"
[ "$(sql "SELECT group_concat(status, ',') FROM agent_calls")" = "ok,ok,error: http,error: stream-cut,error: stream-error,error: quota,error: length,ok,ok" ] &&
    pass "store: every call recorded with its outcome" || fail "store: $(sql "SELECT group_concat(status, ',') FROM agent_calls")"
ls "$TMP/ws/run/bad" >"$TMP/folders"
expect_no_grep '^r[0-9]-agenttest-[a-z]+$' "$TMP/folders" "failed rounds leave no candidate folder"
expect_grep '^r2-agenttest-[a-z]+\.transcript\.jsonl$' "$TMP/folders" "failed rounds keep their transcript"
stop_fake

# a wrong key: 401, not retried
printf '=== text\nunused\n' >"$TMP/script2"
start_fake "$TMP/script2"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.max_retries 3" "set agent.retry_base 0.05"
OPENAI_API_KEY=sk-kwbtest-WRONG-0000000000 kwb_run wrongkey openai 1
expect_code 0 "$RUN_CODE" "wrong key: the session ends normally"
expect_grep 'round 2: .*the agent failed: .*401' "$TMP/wrongkey.err" "wrong key: HTTP 401 said"
[ "$(grep -c '"key":"wrong"' "$TMP/fake.log")" = 1 ] && pass "wrong key: not retried" || fail "wrong key: retried"
stop_fake

# a budget: the first call spends it, the session stops before the next round
{ printf '=== text in=100000 out=100000\n'; good_edit; printf '=== text\nunused\n'; } >"$TMP/script3"
start_fake "$TMP/script3"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.price fake-model 5 15" \
    "set agent.budget_usd 1.5"
kwb_run budget openai 3
expect_code 0 "$RUN_CODE" "budget: the session stops cleanly"
expect_grep 'kwb run: budget reached.*the session stops here' "$TMP/budget.err" "budget: the note says why"
[ "$(sql "SELECT count(*) FROM notes WHERE text LIKE '%budget reached%'")" = 1 ] && pass "budget: noted in the store" ||
    fail "budget: no note"
[ "$(grep -c '"n":' "$TMP/fake.log")" = 1 ] && pass "budget: no call after it is spent" || fail "budget: calls went on"
# kwb write (the workbench's way to the agent) checks the same budget before asking
"$KWB" write --session budget --direction agenttest.lanes --out "$TMP/overbudget" --agent openai >/dev/null 2>"$TMP/wbudget.err"
expect_code 1 "$?" "budget: kwb write refuses once it is spent"
expect_grep '^kwb write: budget reached: \$[0-9.]+ spent of \$1\.50' "$TMP/wbudget.err" "budget: kwb write says why"
[ -e "$TMP/overbudget" ] && fail "budget: kwb write left a folder" || pass "budget: kwb write wrote nothing"
[ "$(grep -c '"n":' "$TMP/fake.log")" = 1 ] && pass "budget: kwb write made no call" || fail "budget: kwb write called"
stop_fake

# cancel: SIGTERM to kwb write in the middle of a slow stream
{ printf '=== text chunk=4 delay_ms=100\n'; good_edit; } >"$TMP/script4"
start_fake "$TMP/script4"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1"
"$KWB" write --session budget --direction agenttest.lanes --out "$TMP/cancelled" --agent openai --events \
    >"$TMP/write.out" 2>"$TMP/write.err" &
wpid=$!
for _ in $(seq 600); do  # (up to 30 s on a loaded machine)
    grep -q '"event":"text"' "$TMP/write.out" 2>/dev/null && break
    kill -0 "$wpid" 2>/dev/null || break
    sleep 0.05
done
t0=$(date +%s%N)
kill -TERM "$wpid"
wait "$wpid"
code=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_code 1 "$code" "cancel: kwb write ends as failed"
[ "$ms" -lt 2000 ] && pass "cancel: it stopped within 2 s ($ms ms)" || fail "cancel took $ms ms"
expect_grep '"event":"error","message":"[^"]*cancel' "$TMP/write.out" "cancel: the error event says cancelled"
[ -e "$TMP/cancelled" ] && fail "cancel: the candidate folder is left" || pass "cancel: no candidate folder"
stop_fake

# cancel: SIGTERM to kwb run while the agent streams: the round is cancelled, the run stops, the
# direction is not rejected (the round engine records the choice; the next run takes it up again)
{ printf '=== text chunk=4 delay_ms=100\n'; good_edit; } >"$TMP/script5"
start_fake "$TMP/script5"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1"
"$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.3 --solution "$TMP/start" --session stop \
    --auto --agent openai --rounds 3 >"$TMP/stop.out" 2>"$TMP/stop.err" &
rpid=$!
for _ in $(seq 2400); do  # (the start's judge comes first: up to 2 min on a loaded machine)
    grep -q 'More accum' "$TMP/stop.err" 2>/dev/null && break
    kill -0 "$rpid" 2>/dev/null || break
    sleep 0.05
done
kill -TERM "$rpid"
wait "$rpid"
expect_code 1 "$?" "cancel kwb run: exit 1"
expect_grep 'cancelled while the agent worked' "$TMP/stop.err" "cancel kwb run: said"
[ "$(sql "SELECT count(*) FROM directions d JOIN sessions s ON s.id = d.session_id WHERE s.name = 'stop' AND d.state = 'rejected'")" = 0 ] &&
    pass "cancel kwb run: the direction is not rejected" || fail "cancel kwb run: a direction was rejected"
finish
