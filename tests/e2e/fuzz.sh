#!/bin/bash
# fuzz.sh - the parsers' libFuzzer targets (tests/fuzz/): built by `make fuzz` (clang, libFuzzer,
# ASan, UBSan), every file of tests/fuzz/regressions/ replayed through each target, then each run
# for a bounded time (KWB_FUZZ_SECONDS, default 3) on its seed corpus by bench/fuzz; any crash,
# leak, timeout or sanitizer report fails. A canary target that crashes on one input shows that
# bench/fuzz notices a crash.
. "$top_srcdir/tests/lib.sh"

seconds=${KWB_FUZZ_SECONDS:-3}
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" -j2 fuzz >"$TMP/build.log" 2>&1; then
    pass "make fuzz builds the targets"
else
    fail "make fuzz"
    tail -n 30 "$TMP/build.log" >&2
    finish
fi

"$top_srcdir/bench/fuzz" -t "$seconds" -j 2 -b "$top_builddir/tests/fuzz" -s "$top_srcdir/tests/fuzz" \
    -w "$TMP/run" >"$TMP/table" 2>"$TMP/err"
rc=$?
cat "$TMP/table"
expect_code 0 "$rc" "every target fuzzed $seconds s and replayed the regression inputs without a crash"
[ "$rc" = 0 ] || sed 's/^/    /' "$TMP/err" >&2
targets=$(ls "$top_srcdir"/tests/fuzz/fuzz_*.c | grep -vc fuzz_common)
rows=$(awk -F'\t' 'NR > 1 && $2 > 0 && $4 > 0' "$TMP/run/summary.tsv" | wc -l)
if [ "$rows" = "$targets" ]; then
    pass "all $targets targets ran and reached coverage"
else
    fail "$rows of $targets targets ran with coverage"
fi
nreg=$(find "$top_srcdir/tests/fuzz/regressions" -type f ! -name README.md | wc -l)
replayed=$(awk -F'\t' -v n="$nreg" 'NR > 1 && $9 == n' "$TMP/run/summary.tsv" | wc -l)
if [ "$replayed" = "$targets" ]; then
    pass "each target replayed the $nreg regression inputs"
else
    fail "$replayed of $targets targets replayed the $nreg regression inputs"
fi

# The canary: a target that aborts on inputs starting with "boom" must fail the run, with the input kept.
fuzz_cc=$(sed -n 's/^FUZZ_CC = //p' "$top_builddir/Makefile")
mkdir -p "$TMP/canary/bin" "$TMP/canary/seeds/canary"
cat >"$TMP/canary/canary.c" <<'C'
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)
{
    if (n >= 4 && memcmp(d, "boom", 4) == 0)
        abort();
    return 0;
}
C
printf 'boo' >"$TMP/canary/seeds/canary/seed"
"$fuzz_cc" -fsanitize=fuzzer,address -o "$TMP/canary/bin/fuzz_canary" "$TMP/canary/canary.c"
"$top_srcdir/bench/fuzz" -t 30 -j 1 -b "$TMP/canary/bin" -s "$TMP/canary/seeds" -w "$TMP/canary/run" \
    >"$TMP/canary/table" 2>&1
expect_code 1 $? "bench/fuzz fails when a target crashes"
if grep -rqs '^boom' "$TMP/canary/run/canary/artifacts/"; then
    pass "the crashing input is kept"
else
    fail "no crash input kept"
    cat "$TMP/canary/table" >&2
fi
finish
