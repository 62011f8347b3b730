/* fuzz_common.h - what the libFuzzer targets (tests/fuzz/fuzz_*.c) share: the input as text and
 * as a file, for the parsers that take a path. */
#ifndef KWB_FUZZ_COMMON_H
#define KWB_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of DATA (SIZE bytes; an embedded NUL ends the text early); the caller
 * frees it. */
char *fuzz_text(const uint8_t *data, size_t size);

/* A path whose file holds exactly DATA: a memfd rewritten on every call (read through
 * /proc/self/fd), so no disk is touched. Valid until the next call. */
const char *fuzz_file(const uint8_t *data, size_t size);

/* A private folder (in /dev/shm when it can be written) made on first use and removed (with what it holds) when the
 * process exits. */
const char *fuzz_dir(void);

/* Writes DATA to NAME inside fuzz_dir() (replacing it); returns the file's path (static buffer). */
const char *fuzz_dir_file(const char *name, const void *data, size_t size);

#endif
