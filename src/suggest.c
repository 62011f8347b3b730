#include "suggest.h"

#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "xalloc.h"

size_t suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    /* three rows of the optimal-string-alignment table */
    size_t *prev2 = xcalloc(lb + 1, sizeof *prev2), *prev = xcalloc(lb + 1, sizeof *prev),
           *cur = xcalloc(lb + 1, sizeof *cur);
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (prev[j - 1] + cost < best)
                best = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[lb];
    free(prev2);
    free(prev);
    free(cur);
    return d;
}

const char *suggest_closest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, len = strlen(word);
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    for (size_t i = 0; i < n; i++) {
        size_t d = suggest_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    if (best && best_d <= limit)
        return best;
    for (size_t i = 0; len >= 3 && i < n; i++) /* "rmsnorm" for "rmsnorm_h128" */
        if (strstr(names[i], word))
            return names[i];
    return NULL;
}

void suggest_bad_option(const char *cmd, char **argv, const struct option *opts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    size_t n = 0;
    while (opts[n].name)
        n++;
    if (optopt != 0) { /* a known option without its value */
        for (size_t i = 0; i < n; i++)
            if (opts[i].val == optopt && opts[i].has_arg == required_argument && strstr(arg, opts[i].name)) {
                fprintf(stderr, "kwb %s: --%s needs a value\n", cmd, opts[i].name);
                return;
            }
        fprintf(stderr, "kwb %s: option '%s' needs a value\n", cmd, arg);
        return;
    }
    const char *word = arg + strspn(arg, "-");
    char *name = xstrndup(word, strcspn(word, "="));
    const char **names = xcalloc(n + 1, sizeof *names);
    for (size_t i = 0; i < n; i++)
        names[i] = opts[i].name;
    const char *near = suggest_closest(name, names, n);
    if (near)
        fprintf(stderr, "kwb %s: unknown option '%s' (did you mean '--%s'?)\n", cmd, arg, near);
    else
        fprintf(stderr, "kwb %s: unknown option '%s'\n", cmd, arg);
    free(names);
    free(name);
}
