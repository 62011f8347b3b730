#!/bin/bash
# The runner as a sandbox (issue 20, item 2): candidates that open a socket, start a program,
# start a process, write outside the scratch folder, read a planted ~/.ssh key, or take over
# the SIGSYS handler are REJECTED_INTEGRITY with the call or path named; an honest copy, a
# candidate that joins its own threads, and one that writes in its scratch folder pass; with
# --sandbox off the same socket candidate passes and the evaluation records that the sandbox
# was off; kwb-runner --sandbox-info prints the policy. KWB_TEST_DEVICE=cuda runs it on the GPU
# (tests/gpu/sandbox).
. "$top_srcdir/tests/lib.sh"

. "$top_srcdir/tests/sandbox_lib.sh"
mkdir -p "$TMP/tmpdir"
export TMPDIR="$TMP/tmpdir" # the runners' scratch folders where only this test's are

# cand NAME CODE: a copy kernel that first runs CODE (C statements; errno-style failures are
# ignored, so that a refused call alone decides the verdict).
cand() {
    copy_candidate "$TMP/$1" "sb_$1" 'static void *work(void *p) { return p; }' "(void)work; $2"
}

# run NAME [EXTRA...]: evaluates candidate NAME on one workload (timed only briefly: too few
# calls on fresh inputs for the timing defences, which a loaded machine can fool); table in
# $TMP/NAME.out
run() {
    local name=$1
    shift
    HOME="$TMP/home" "$KWB" eval --device "$TEST_DEVICE" --dataset "$DS" --definition $COPY --solution "$TMP/$name" \
        --workloads c-odd --trials 1 --max-time 0.001 --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# refused NAME REGEX: NAME is REJECTED_INTEGRITY and the reason matches REGEX
refused() {
    run "$1"
    expect_grep '^c-odd .* REJECTED_INTEGRITY' "$TMP/$1.out" "$1: REJECTED_INTEGRITY"
    expect_grep "$2" "$TMP/$1.out" "$1: the reason names /$2/"
}

mkdir -p "$TMP/home/.ssh" "$TMP/outside"
echo "PRIVATE KEY of the test" >"$TMP/home/.ssh/id_ed25519"

cand socket 'int fd = socket(AF_INET, SOCK_STREAM, 0); if (fd >= 0) close(fd);'
refused socket "the sandbox refused system call 'socket' \\(network\\)"

cand exec 'execl("/bin/true", "true", (char *)NULL);'
refused exec "the sandbox refused system call 'execve' \\(starting a program\\)"

cand fork 'pid_t p = fork(); if (p == 0) _exit(0); if (p > 0) waitpid(p, NULL, 0);'
refused fork "the sandbox refused system call 'clone' \\(a new process\\)"

cand write_outside "FILE *f = fopen(\"$TMP/outside/loot.txt\", \"w\"); if (f) fclose(f);"
refused write_outside "the sandbox refused openat of '$TMP/outside/loot.txt' \\(a write outside the scratch folder\\)"
[ ! -e "$TMP/outside/loot.txt" ] && pass "write_outside: no file was made" || fail "write_outside: the file exists"

cand read_ssh 'char p[512]; snprintf(p, sizeof p, "%s/.ssh/id_ed25519", getenv("HOME")); int fd = open(p, O_RDONLY); if (fd >= 0) close(fd);'
refused read_ssh "the sandbox refused openat of '$TMP/home/.ssh/id_ed25519' \\(a read outside the allowed files\\)"

cand sigsys 'signal(SIGSYS, SIG_IGN);'
refused sigsys "the sandbox refused system call 'rt_sigaction' \\(replacing the sandbox's SIGSYS handler\\)"

# SIGSYS blocked: the kernel delivers it anyway and the runner dies of it; still the candidate's.
cand sigsys_blocked 'sigset_t b; sigemptyset(&b); sigaddset(&b, SIGSYS); pthread_sigmask(SIG_BLOCK, &b, NULL); int fd = socket(AF_INET, SOCK_DGRAM, 0); if (fd >= 0) close(fd);'
refused sigsys_blocked "the sandbox killed the runner: a refused system call \\(killed by signal 31"

# Allowed: threads joined before return, files in the scratch folder (the working folder and $TMPDIR).
cand threads 'pthread_t t[4]; for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, NULL); for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);'
run threads
expect_grep '^1 workloads: 1 PASSED' "$TMP/threads.out" "threads joined before return: PASSED"

cand scratch 'char p[512]; snprintf(p, sizeof p, "%s/note", getenv("TMPDIR")); FILE *f = fopen(p, "w"); if (!f) return 7; fclose(f); f = fopen("here.txt", "w"); if (!f) return 8; fputs("x", f); fclose(f); unlink("here.txt");'
run scratch
expect_grep '^1 workloads: 1 PASSED' "$TMP/scratch.out" "writes in the scratch folder: PASSED"
ls -d "$TMPDIR"/kwb-scratch-* 2>/dev/null | while read -r d; do [ -e "$d/note" ] && echo "$d"; done >"$TMP/left"
[ ! -s "$TMP/left" ] && pass "the scratch folder is removed after the runner" || fail "scratch left: $(cat "$TMP/left")"

# Links left in the scratch folder: its removal takes the links, never what they point to (a
# directory and a file of the user's, a directory of its own shut with mode 000).
mkdir -p "$TMP/keep"
echo "the user's file" >"$TMP/keep/file"
cand links "static int made; if (!made++ && (symlink(\"$TMP/keep\", \"dir_link\") != 0 || symlink(\"$TMP/keep/file\", \"file_link\") != 0 || mkdir(\"shut\", 0700) != 0 || symlink(\"$TMP/keep\", \"shut/inner\") != 0 || chmod(\"shut\", 0) != 0)) return 100 + errno;"
run links
expect_grep '^1 workloads: 1 PASSED' "$TMP/links.out" "links in the scratch folder: PASSED"
[ -f "$TMP/keep/file" ] && [ "$(cat "$TMP/keep/file")" = "the user's file" ] &&
    pass "the scratch folder's removal left what its links point to" || fail "the user's file is gone: $(ls -la "$TMP/keep")"
ls -d "$TMPDIR"/kwb-scratch-* 2>/dev/null | while read -r d; do [ -L "$d/dir_link" ] && echo "$d"; done >"$TMP/left"
[ ! -s "$TMP/left" ] && pass "the scratch folder with links is removed" || fail "scratch left: $(cat "$TMP/left")"

cand reads_own "FILE *f = fopen(\"$TMP/reads_own/solution.json\", \"r\"); if (!f) return 9; fclose(f);"
run reads_own
expect_grep '^1 workloads: 1 PASSED' "$TMP/reads_own.out" "reads of its own solution folder: PASSED"

cand honest ''
run honest
expect_grep '^1 workloads: 1 PASSED' "$TMP/honest.out" "honest copy: PASSED under the sandbox"

# --sandbox off: for debugging; the socket passes, and the evaluation says the sandbox was off.
"$KWB" init "$TMP/ws" >/dev/null 2>&1
run socket --sandbox off --workspace "$TMP/ws" --session dbg --name sock --traces "$TMP/socket.traces"
expect_grep '^1 workloads: 1 PASSED' "$TMP/socket.out" "--sandbox off: the socket candidate passes"
expect_grep '^kwb eval: sandbox off \(--sandbox off\)' "$TMP/socket.err" "--sandbox off: said on stderr"
expect_grep '\(kwb sandbox off\)' "$TMP/socket.traces" "--sandbox off: recorded in the traces"
sqlite3 "$TMP/ws/kwb.db" "SELECT runner_version FROM eval_runs" >"$TMP/store.txt" 2>&1
expect_grep 'sandbox off' "$TMP/store.txt" "--sandbox off: recorded with the eval run in the store"
"$KWB" eval --device "$TEST_DEVICE" --dataset "$DS" --definition $COPY --solution "$TMP/honest" --sandbox maybe >/dev/null 2>"$TMP/bad.err"
expect_code 2 $? "--sandbox maybe is refused"
expect_grep "kwb eval: --sandbox: 'maybe' is not on or off" "$TMP/bad.err" "--sandbox: the message"

"$KWB_RUNNER" --sandbox-info --device "$TEST_DEVICE" >"$TMP/info.txt" 2>&1
expect_grep 'refused, the call named in the verdict' "$TMP/info.txt" "--sandbox-info: system calls"
expect_grep ' socket .* execve .* ptrace' "$TMP/info.txt" "--sandbox-info: lists the refused calls"
expect_grep 'writes only in the runner.s scratch folder|Landlock left out' "$TMP/info.txt" "--sandbox-info: the file system"
[ "$TEST_DEVICE" = cpu ] && expect_grep 'address space' "$TMP/info.txt" "--sandbox-info: rlimits (cpu: address space)"
[ "$TEST_DEVICE" = cuda ] && expect_grep '/dev/nvidia\*' "$TMP/info.txt" "--sandbox-info: the GPU's device nodes"
expect_grep 'lifetime: ' "$TMP/info.txt" "--sandbox-info: the lifetime supervision"

finish
