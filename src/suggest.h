/* suggest.h - "did you mean": the closest of a set of names to a mistyped one. */
#ifndef KWB_SUGGEST_H
#define KWB_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* The edit distance (insertions, deletions, substitutions, adjacent swaps) between A and B. */
size_t suggest_distance(const char *a, const char *b);
/* The name among NAMES[0..n) nearest to WORD, or NULL when none is near enough to be a typo of
 * it (distance above a third of WORD's length, at least 2) and none has WORD as a substring. */
const char *suggest_closest(const char *word, const char *const *names, size_t n);

/* After getopt_long (with opterr 0) returned '?': prints "kwb CMD: unknown option '--x' (did you
 * mean '--y'?)" or "kwb CMD: --y needs a value" for the argument before optind, OPTS being the
 * options given to getopt_long. */
void suggest_bad_option(const char *cmd, char **argv, const struct option *opts);

#endif
