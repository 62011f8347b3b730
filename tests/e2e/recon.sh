#!/bin/bash
# kwb recon DIRECTION: the skill's references (front matter `references:`) searched for the
# direction's keywords, hits with file, line and numbered context, the hit line marked; --ref adds
# a folder, so does the configuration's agent.references, --keywords replaces the words,
# --definition adds the shipped kernels of a definition;
# a missing folder is listed; an unknown direction is exit 2.
. "$top_srcdir/tests/lib.sh"
export KWB_SKILLS="$top_srcdir/tests/fixtures/agents/skills"
"$KWB" recon agenttest.lanes >"$TMP/r1.out" 2>"$TMP/r1.err"
expect_code 0 "$?" "recon of a skill direction"
expect_grep '^direction: agenttest\.lanes: More independent accumulators' "$TMP/r1.out" "names the direction"
expect_grep '^keywords: accumulators LANES$' "$TMP/r1.out" "the direction's keywords"
expect_grep '^references consulted: .*/refs$' "$TMP/r1.out" "the skill's reference folder"
expect_grep '/refs/wide_dot\.c:5:$' "$TMP/r1.out" "a hit with file and line"
expect_grep '^>    5\|     float acc\[8\] = \{0\}; /\* eight accumulators in flight \*/$' "$TMP/r1.out" "the hit line, marked"
expect_grep '^     4\| \{$' "$TMP/r1.out" "context before it, numbered"
mkdir -p "$TMP/more"
printf 'int x;\n// LANES wide\n' >"$TMP/more/x.cu"
"$KWB" recon agenttest.lanes --ref "$TMP/more" --ref "$TMP/missing" --context 0 >"$TMP/r2.out" 2>&1
expect_grep "^references consulted: $TMP/more .*/refs\$" "$TMP/r2.out" "--ref adds a folder to the skill's"
expect_grep "reference not readable: $TMP/missing" "$TMP/r2.out" "a missing folder is listed"
expect_grep "^$TMP/more/x\.cu:2:\$" "$TMP/r2.out" "a hit in the added folder"
"$KWB" recon agenttest.three --keywords float4,coalesced --definition "$DEF" --max-hits 2 >"$TMP/r3.out" 2>&1
expect_code 0 "$?" "--keywords and --definition"
expect_grep '^keywords: float4 coalesced$' "$TMP/r3.out" "--keywords replaces the words"
expect_grep "kernels/$DEF\$" "$TMP/r3.out" "--definition adds the shipped kernels"
expect_grep '^2 hit\(s\)' "$TMP/r3.out" "--max-hits"
printf 'set agent.references %s\n' "$TMP/more" >"$TMP/agents.conf"
KWB_AGENT_CONFIG="$TMP/agents.conf" "$KWB" recon agenttest.lanes >"$TMP/r5.out" 2>&1
expect_grep "^references consulted: .*/refs $TMP/more\$" "$TMP/r5.out" "the configuration's agent.references"
"$KWB" recon no.such.direction >/dev/null 2>"$TMP/r4.err"
expect_code 2 "$?" "unknown direction"
expect_grep "no direction 'no.such.direction'" "$TMP/r4.err" "unknown direction: said"
finish
