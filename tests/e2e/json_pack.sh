#!/bin/bash
# Every json_pack call in kwb's C sources has as many arguments as its format asks for: jansson
# cannot check this at compile time, and one spare "s:i" in the runner's workload-end event left
# the cost account out of every row on some builds (the call read a key from the stack). Shows it
# notices a call with one argument short.
. "$top_srcdir/tests/lib.sh"

command -v python3 >/dev/null || { fail "python3 is not installed"; exit 1; }

# arity FILE...: prints FILE:LINE: format, asked, given for each call whose counts differ
arity() {
    python3 - "$@" <<'PY'
import re, sys

def string_end(s, k):
    e = k + 1
    while s[e] != '"':
        e += 2 if s[e] == "\\" else 1
    return e

def split_args(rest):
    args, depth, cur, k = [], 0, "", 0
    while k < len(rest):
        c = rest[k]
        if c == '"':
            e = string_end(rest, k)
            cur += rest[k:e + 1]
            k = e + 1
            continue
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
        k += 1
    return [a for a in args + [cur] if a.strip()]

for path in sys.argv[1:]:
    src = open(path).read()
    for m in re.finditer(r"\bjson_pack\(", src):
        depth, j = 1, m.end()
        while depth:
            if src[j] == '"':
                j = string_end(src, j)
            depth += (src[j] == "(") - (src[j] == ")")
            j += 1
        body = src[m.end():j - 1]
        fm = re.match(r'\s*"((?:[^"\\]|\\.)*)"\s*,?', body)
        if not fm:
            continue
        asked = len(re.findall(r"[sifobIOF]", fm.group(1).replace("s#", "s").replace("s%", "s")))
        given = len(split_args(body[fm.end():]))
        if asked != given:
            print(f"{path}:{src.count(chr(10), 0, m.start()) + 1}: \"{fm.group(1)}\" asks for {asked}, given {given}")
PY
}

find "$top_srcdir/src" -name '*.c' | sort >"$TMP/files"
arity $(cat "$TMP/files") >"$TMP/found"
[ ! -s "$TMP/found" ] && pass "$(grep -l 'json_pack(' $(cat "$TMP/files") | wc -l) files: every json_pack call has its arguments" ||
    fail "json_pack calls with the wrong number of arguments: $(cat "$TMP/found")"

cat >"$TMP/bad.c" <<'C'
static void f(void) { json_t *j = json_pack("{s:i, s:f}", "a", 1, "b"); (void)j; }
C
arity "$TMP/bad.c" | grep -q 'asks for 4, given 3' && pass "the check notices a call one argument short" ||
    fail "the check did not notice a call one argument short"
[ "$failures" -eq 0 ]
