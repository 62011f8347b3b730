#!/bin/bash
# Issue 19 item 3: no API key known to kwb is written anywhere. Every agent kind runs with a
# distinctive key (openai: from the environment; anthropic: a 5-character key in agents.conf;
# command: from the environment) while the model and the command print the key, put it in an
# edit, in a failing SEARCH and in a candidate file; then the whole workspace (the store and its
# WAL, every git object decompressed, transcripts, logs, prompts, candidate folders), `kwb log`,
# every report format and all output are searched for each key: nothing is found, and the
# candidates that held a key were refused.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/agent_lib.sh"
ENVKEY="kwbCANARY-env-7Qx3"   # openai and command (OPENAI_API_KEY)
SHORTKEY="qZ7kW"              # anthropic, written in agents.conf (0600)

# openai: key in the prose of a good edit; key inside an edit (refused); key in a SEARCH that fails
{
    echo "=== text chunk=3"
    printf 'My key is %s, and here is the edit.\n\n' "$ENVKEY"
    good_edit
    echo "=== text chunk=5"
    printf 'gdn_decode_fast.c\n<<<<<<< SEARCH\n'
    grep '^#define MAX_THREADS 8 ' "$TMP/start/gdn_decode_fast.c"
    printf '=======\n#define MAX_THREADS 4 /* %s */\n>>>>>>> REPLACE\n' "$ENVKEY"
    echo "=== text"
    printf 'gdn_decode_fast.c\n<<<<<<< SEARCH\n#define KEY "%s"\n=======\n#define KEY 1\n>>>>>>> REPLACE\n' "$ENVKEY"
    echo "=== text"
    printf 'Again %s\ngdn_decode_fast.c\n<<<<<<< SEARCH\n#define KEY "%s"\n=======\n#define KEY 2\n>>>>>>> REPLACE\n' \
        "$ENVKEY" "$ENVKEY"
} >"$TMP/script"
start_fake "$TMP/script" "$ENVKEY"
agent_config "set agent.openai.base_url http://127.0.0.1:$FAKE_PORT/v1" "set agent.openai.model gpt-test" \
    "set agent.retry_base 0.05" "set agent.anthropic.api_key $SHORTKEY"
export OPENAI_API_KEY="$ENVKEY"
kwb_run oa openai 3
expect_code 0 "$RUN_CODE" "openai: three rounds"
expect_grep 'round [0-9]+: agenttest.threads: the agent failed: gdn_decode_fast.c holds an API key known to kwb: the candidate is refused' \
    "$TMP/oa.err" "openai: the candidate holding the key is refused"
expect_grep 'round [0-9]+: agenttest.three: the agent failed: after one retry turn' "$TMP/oa.err" "openai: the failing SEARCH went round the retry turn"
expect_grep '\[REDACTED\]' "$TMP/oa.err" "openai: the streamed key is shown redacted"
stop_fake
mv "$TMP/fake.log" "$TMP/fake-openai.log"   # searched with the rest

# anthropic with the short key from agents.conf: the reply quotes it and puts it in a new file
{
    echo "=== text chunk=2"
    printf 'Key %s.\n\nnotes.h\n<<<<<<< SEARCH\n=======\n#define NOTE "%s"\n>>>>>>> REPLACE\n' "$SHORTKEY" "$SHORTKEY"
} >"$TMP/script2"
start_fake "$TMP/script2" "$SHORTKEY"
agent_config "set agent.anthropic.base_url http://127.0.0.1:$FAKE_PORT" "set agent.anthropic.model claude-test" \
    "set agent.anthropic.api_key $SHORTKEY" "set agent.retry_base 0.05" "set agent.anthropic.api_key_env NO_SUCH_VAR"
"$KWB" write --session oa --direction agenttest.three --out "$TMP/written-an" --agent anthropic --events \
    >"$TMP/an.out" 2>"$TMP/an.err"
expect_code 1 "$?" "anthropic: kwb write with a reply that writes the key"
expect_grep 'notes.h holds an API key known to kwb' "$TMP/an.out" "anthropic: refused"
[ -e "$TMP/written-an" ] && fail "anthropic: a folder was left" || pass "anthropic: no folder left"
stop_fake

# command: prints the key (log, stderr), writes it into the candidate, prints it and fails
export FAKE_AGENT_STATE="$TMP/agent-state" FAKE_AGENT_PLAN="leak leakfile leakfail"
agent_config "set agent.command.command $AGENT_FIX/fake_agent.sh" "set agent.command.command_timeout 20" \
    "set agent.anthropic.api_key $SHORTKEY"
kwb_run cm command 3
expect_code 0 "$RUN_CODE" "command: three rounds"
expect_grep 'round [0-9]+: agenttest.threads: .*gdn_decode_fast.c holds an API key known to kwb' "$TMP/cm.err" "command: the file with the key is refused"
expect_grep 'round [0-9]+: agenttest.three: .*ended with exit code 3; last lines of .*failing with \[REDACTED\]' "$TMP/cm.err" \
    "command: the log's tail is redacted"
expect_grep 'my key is \[REDACTED\]' "$TMP/ws/run/cm/r2-agenttest-lanes.agent.log" "command: the agent log is redacted"

# every sink
"$KWB" log oa >"$TMP/log-oa.txt" 2>&1
"$KWB" log cm >"$TMP/log-cm.txt" 2>&1
for f in md csv json traces html; do
    "$KWB" report cm --format "$f" --output "$TMP/report-cm.$f" >/dev/null 2>&1
    "$KWB" report oa --format "$f" --output "$TMP/report-oa.$f" >/dev/null 2>&1
done
[ -s "$TMP/report-cm.html" ] && pass "reports written" || fail "no report"
git -C "$TMP/ws/candidates.git" cat-file --batch-all-objects --batch >"$TMP/git-objects.txt" 2>&1
git -C "$TMP/ws/candidates.git" log -p --all >"$TMP/git-log.txt" 2>&1
[ -s "$TMP/git-objects.txt" ] && pass "git objects decompressed" || fail "no git objects"
sqlite3 "$TMP/ws/kwb.db" .dump >"$TMP/db-dump.sql" 2>&1
grep -qF "$SHORTKEY" "$KWB_AGENT_CONFIG" && grep -rqaF "$ENVKEY" "$TMP/script" && pass "the search finds a key where one is" ||
    fail "the search is blind"
for key in "$ENVKEY" "$SHORTKEY"; do
    hits=$(grep -rlaF --exclude=agents.conf --exclude=script --exclude=script2 -- "$key" "$TMP" || true)
    [ -z "$hits" ] && pass "key ${key:0:4}...: found nowhere" || fail "key ${key:0:4}... found in: $hits"
done
finish
