/* build.h - building a solution into a shared object, cached by a hash of everything
 * that goes into it (sources, entry, flags, compiler, the headers of INCLUDE/kwb and of the
 * extra include folders). */
#ifndef KWB_BUILD_H
#define KWB_BUILD_H

#include "error.h"
#include "solution.h"

typedef struct build_options {
    const char *cache_dir;   /* builds go to CACHE_DIR/builds/HASH/ */
    const char *include_dir; /* holds kwb/kernel.h */
    const char *cc;          /* C compiler; NULL: $CC or "cc" */
    const char *nvcc;        /* nvcc; NULL: the configured one, if any */
    const char *cuda_arch;   /* e.g. "sm_90a"; NULL: sm_90a */
    double timeout_s;        /* compiler time limit */
    int quiet;               /* callers say nothing of a build that succeeded (--quiet) */
    char **extra_include;    /* more folders of headers (-I), each file in them hashed; NULL: none */
    int nextra_include;      /* (a reference's kwb.reference.include); owned by the caller */
} build_options;

typedef struct build_result {
    int ok;     /* 1: so_path holds the built object; 0: COMPILE_ERROR, see log */
    int cached; /* 1 when no compiler ran */
    char *hash; /* hex SHA-256 of the build's inputs */
    char *so_path;
    char *command;  /* the compiler command line, as recorded with the build */
    char *log;      /* compiler output */
    double seconds; /* compile time (0 when cached) */
} build_result;

/* Fills *opt with defaults for the cache and include folders from paths.h. The caller
 * frees with build_options_free(). */
void build_options_default(build_options *opt);
/* Frees what build_options_default allocated. */
void build_options_free(build_options *opt);

/* Builds S. Returns 0 when the build ran or was found in the cache (check r->ok), or -1
 * with *err set when the harness itself failed (no compiler for the language, cannot
 * write the cache). Free *r with build_result_free(). */
int build_solution(const solution *s, const build_options *opt, build_result *r, kwb_error *err);
/* Frees the contents of r. */
void build_result_free(build_result *r);

#endif
