#include "status.h"

#include <string.h>

static const char *const status_names[ST_COUNT] = {
    "PASSED",        "INCORRECT_SHAPE", "INCORRECT_DTYPE", "INCORRECT_NUMERICAL",
    "RUNTIME_ERROR", "COMPILE_ERROR",   "TIMEOUT",         "REJECTED_INTEGRITY",
};

const char *status_name(eval_status s)
{
    return (s >= 0 && s < ST_COUNT) ? status_names[s] : "UNKNOWN";
}

int status_from_name(const char *name, eval_status *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        if (strcmp(name, status_names[i]) == 0) {
            *s = (eval_status)i;
            return 0;
        }
    }
    return -1;
}

const char *status_trace_name(eval_status s)
{
    return s == ST_REJECTED_INTEGRITY ? "RUNTIME_ERROR" : status_name(s);
}
