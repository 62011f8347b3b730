#!/bin/bash
# Issue 19 item 2 (kwb write's part): kwb write killed with SIGKILL at a random point, 20 times,
# leaves either no --out folder or a complete one, and running the same command again works (it
# takes away the scratch folder a kill left). The agent is the openai one against the fake
# server, streaming slowly so that kills land before, during and after the call.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"
"$KWB" eval --definition "$DEF" --solution "$TMP/start" --session s --name start --workloads batch_size=16 \
    --max-time 0.05 --trials 1 --quiet >/dev/null 2>&1 || fail "start"
"$KWB" decide start promote --session s --reason start >/dev/null 2>&1 || fail "decide"
{ for _ in $(seq 1 60); do printf '=== text chunk=16 delay_ms=8\n'; good_edit; done; } >"$TMP/script"
start_fake "$TMP/script"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test"
export OPENAI_API_KEY="$FAKE_KEY"
complete() {   # DIR holds the whole candidate: solution.json and the edited source
    [ -f "$1/solution.json" ] && grep -q '^#define LANES 8 ' "$1/gdn_decode_fast.c" 2>/dev/null
}
RANDOM=19
bad=0 absent=0 whole=0
for i in $(seq 1 20); do
    out="$TMP/c$i"
    setsid "$KWB" write --session s --direction agenttest.lanes --out "$out" --agent openai >/dev/null 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 5))$((RANDOM % 10))"
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if [ -e "$out" ]; then
        complete "$out" && whole=$((whole + 1)) || { bad=$((bad + 1)); fail "kill $i: $out is incomplete"; }
        continue
    fi
    absent=$((absent + 1))
    "$KWB" write --session s --direction agenttest.lanes --out "$out" --agent openai >"$TMP/retry$i" 2>&1 ||
        { bad=$((bad + 1)); fail "kill $i: the retry failed: $(tail -1 "$TMP/retry$i")"; }
    complete "$out" || { bad=$((bad + 1)); fail "kill $i: the retry's folder is incomplete"; }
    [ -e "$out.partial" ] && { bad=$((bad + 1)); fail "kill $i: the scratch folder is left after the retry"; }
done
[ "$bad" = 0 ] && pass "20 kills: $absent left no folder (each retried fine), $whole had finished" || fail "$bad bad outcome(s)"
[ "$absent" -gt 0 ] && pass "at least one kill landed before the folder was complete" || fail "no kill landed mid-write"
finish
