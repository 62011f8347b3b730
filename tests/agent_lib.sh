# tests/agent_lib.sh - what the agent e2e tests share (sourced after tests/lib.sh): a workspace
# with the CPU demo's fast solution slowed down (LANES 1, and a 20 ms sleep per call while LANES is
# 1, so that the agents' good edit, LANES 8, is promoted however loaded the machine: on two busy
# cores the 1.3x of LANES alone was once read as unclear at the gate), the test skills and
# references, the fake model server on the loopback started on a script, and an agent configuration
# file.
AGENT_FIX="$top_srcdir/tests/fixtures/agents"
FAKE_LLM="$top_builddir/tests/fake_llm"
FAKE_KEY="sk-kwbtest-Z9Q8W7E6R5T4Y3U2"
export KWB_WORKSPACE="$TMP/ws" KWB_SKILLS="$AGENT_FIX/skills" KWB_AGENT_CONFIG="$TMP/agents.conf"
unset OPENAI_API_KEY ANTHROPIC_API_KEY
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
cp -r "$KERNELS/fast" "$TMP/start"
sed -i -e 's/^#define LANES 8 /#define LANES 1 /' \
    -e 's|^    (void)stream;$|    (void)stream;\n    if (LANES == 1)\n        usleep(20000); /* kwb-test: the start is slow */|' \
    "$TMP/start/gdn_decode_fast.c"
grep -q 'kwb-test: the start is slow' "$TMP/start/gdn_decode_fast.c" || fail "the start's sleep"
FAKE_PID=

# The answer that makes the good edit: LANES 1 -> 8 as a SEARCH/REPLACE block.
good_edit() {
    printf 'More accumulators, adapted from the reference.\n\ngdn_decode_fast.c\n```c\n<<<<<<< SEARCH\n'
    grep '^#define LANES 1 ' "$TMP/start/gdn_decode_fast.c"
    printf '=======\n'
    grep '^#define LANES 1 ' "$TMP/start/gdn_decode_fast.c" | sed 's/LANES 1 /LANES 8 /'
    printf '>>>>>>> REPLACE\n```\n'
}

# start_fake SCRIPT [KEY]: the fake server on SCRIPT (a fresh log $TMP/fake.log) accepting KEY (default
# $FAKE_KEY), its port in $FAKE_PORT.
start_fake() {
    rm -f "$TMP/port" "$TMP/fake.log"
    "$FAKE_LLM" --script "$1" --log "$TMP/fake.log" --key "${2:-$FAKE_KEY}" --port-file "$TMP/port" --lifetime 300 &
    FAKE_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
    FAKE_PORT=$(cat "$TMP/port")
    [ -n "$FAKE_PORT" ] || fail "the fake server did not start"
}

stop_fake() {
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
    FAKE_PID=
}
trap 'stop_fake; [ -n "${KEEP_TMP:-}" ] || remove_tmp' EXIT

# agent_config LINE...: writes the agent configuration file (mode 0600) from the lines given.
agent_config() {
    printf '%s\n' "$@" >"$KWB_AGENT_CONFIG"
    chmod 600 "$KWB_AGENT_CONFIG"
}

# kwb_run SESSION AGENT ROUNDS: a headless --auto run on the batch-16 workloads into
# $TMP/SESSION.out and .err; its exit code in $RUN_CODE.
kwb_run() {
    "$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.3 --solution "$TMP/start" \
        --session "$1" --auto --agent "$2" --rounds "$3" >"$TMP/$1.out" 2>"$TMP/$1.err"
    RUN_CODE=$?
}

# sql QUERY: one value from the workspace's store.
sql() {
    sqlite3 "$TMP/ws/kwb.db" "$1"
}
