# tests/sandbox_lib.sh - candidates for the sandbox and lifetime tests (sourced after lib.sh):
# a copy kernel for bench_copy_f32 that first runs some C statements, as C for the cpu device
# or as CUDA (the copy on the given stream) when KWB_TEST_DEVICE=cuda (tests/gpu/sandbox).
TEST_DEVICE=${KWB_TEST_DEVICE:-cpu}
ADV="$top_srcdir/tests/adversarial"
DS="$ADV/dataset"
COPY=bench_copy_f32

# copy_candidate DIR NAME HELPERS CODE: DIR/solution.json and the source; HELPERS are C
# definitions placed before kwb_entry, CODE its first statements.
copy_candidate() {
    local dir=$1 name=$2 helpers=$3 code=$4 src=copy.c lang=c copy entry="int kwb_entry"
    copy='memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));'
    if [ "$TEST_DEVICE" = cuda ]; then
        src=copy.cu lang=cuda entry='extern "C" int kwb_entry'
        copy='cudaMemcpyAsync(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float), cudaMemcpyDeviceToDevice, (cudaStream_t)s);'
    fi
    mkdir -p "$dir"
    sed "s/adv_honest/$name/; s/copy.c/$src/; s/\"language\": \"c\"/\"language\": \"$lang\"/" \
        "$ADV/cpu/00_honest/solution.json" >"$dir/solution.json"
    cat >"$dir/$src" <<C
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
$([ "$TEST_DEVICE" = cuda ] && echo '#include <cuda_runtime.h>')

#include "kwb/kernel.h"

$helpers

$entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    $code
    $copy
    return 0;
}
C
}
