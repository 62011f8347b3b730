#!/bin/bash
# Issue 19 item 4: a model's reply is bounded. A 30 MB streamed reply is stopped at
# agent.max_reply_bytes (default 8 MiB) with a clear message and kwb's peak memory stays far
# below the reply's size; a reply past agent.total_timeout is stopped and said; the retry turn
# sends back the first answer clipped, not whole.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"
"$KWB" eval --definition "$DEF" --solution "$TMP/start" --session s --name start --workloads batch_size=16 \
    --max-time 0.05 --trials 1 --quiet >/dev/null 2>&1 || fail "start"
"$KWB" decide start promote --session s --reason start >/dev/null 2>&1 || fail "decide"
export OPENAI_API_KEY="$FAKE_KEY"
write() { "$KWB" write --session s --direction agenttest.lanes --out "$TMP/$1" --agent openai >"$TMP/$1.out" 2>"$TMP/$1.err"; }

# 30 MB in 64 KiB pieces
{
    echo "=== text chunk=65536"
    yes 'filler filler filler filler filler filler filler filler filler filler filler filler filler' | head -c 30000000
    echo
} >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test" "set agent.max_retries 0"
/usr/bin/time -f '%M' -o "$TMP/rss" "$KWB" write --session s --direction agenttest.lanes --out "$TMP/big" --agent openai \
    >"$TMP/big.out" 2>"$TMP/big.err"
expect_code 1 "$?" "a 30 MB reply fails the write"
expect_grep 'the reply is longer than 8388608 bytes \(agent.max_reply_bytes\); stopped' "$TMP/big.err" "the cap is named"
rss=$(tail -1 "$TMP/rss")
[ "$rss" -lt 65536 ] && pass "peak memory ${rss} KiB for a 30 MB reply" || fail "peak memory ${rss} KiB"
[ -e "$TMP/big" ] && fail "a folder was left" || pass "no folder left"
stop_fake

# a slow reply past agent.total_timeout
{ printf '=== text chunk=2 delay_ms=200\n'; good_edit; } >"$TMP/script2"
start_fake "$TMP/script2"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.total_timeout 1"
write slow
expect_code 1 "$?" "a reply past total_timeout"
expect_grep 'no complete reply within 1 s \(agent.total_timeout\)' "$TMP/slow.err" "total_timeout is named"
stop_fake

# the retry turn: a 400 KB first answer with a failing block goes back clipped
{
    echo "=== text chunk=65536"
    yes 'prose prose prose prose prose prose prose prose prose prose prose prose prose prose prose' | head -c 400000
    printf '\ngdn_decode_fast.c\n<<<<<<< SEARCH\n#define NOT_THERE 1\n=======\n#define X 2\n>>>>>>> REPLACE\n'
    echo "=== text"
    good_edit
} >"$TMP/script3"
start_fake "$TMP/script3"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test"
write retry
expect_code 0 "$?" "the retry turn's answer applies"
size=$(sed -n 2p "$TMP/fake.log" | wc -c)
[ "$size" -lt 200000 ] && pass "the retry request is ${size} bytes, not the 400 KB answer" || fail "retry request ${size} bytes"
sed -n 2p "$TMP/fake.log" >"$TMP/retry-req"
expect_grep 'cut by kwb' "$TMP/retry-req" "the echoed answer says it was cut"
expect_grep 'NOT_THERE' "$TMP/retry-req" "the failing block is still in it"
finish
