#include "pidlive.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /proc/PID/stat's fields from the third on (after the command name, which may hold spaces and
 * parentheses) in LINE (CAP bytes); NULL when there is no such process or the line is odd. */
static const char *stat_fields(pid_t pid, char *line, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *got = fgets(line, (int)cap, f);
    fclose(f);
    const char *p = got ? strrchr(line, ')') : NULL;
    return p && p[1] == ' ' ? p + 2 : NULL;
}

int pidlive_start_time(pid_t pid, char *buf, size_t cap)
{
    char line[1024];
    const char *p = stat_fields(pid, line, sizeof line);
    if (!p)
        return -1;
    for (int field = 3; field < 22 && *p; p++)
        if (*p == ' ')
            field++;
    size_t len = strcspn(p, " \n");
    if (len == 0 || len >= cap)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 0;
}

/* 1 when /proc/PID/status's LABEL line (a hex signal mask) has SIGKILL in it. */
static int sigkill_in(pid_t pid, const char *label)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int found = 0;
    size_t n = strlen(label);
    while (!found && fgets(line, sizeof line, f))
        if (strncmp(line, label, n) == 0 && line[n] == ':')
            found = (strtoull(line + n + 1, NULL, 16) >> (SIGKILL - 1)) & 1;
    fclose(f);
    return found;
}

int pidlive_dying(pid_t pid)
{
    enum { PF_EXITING_FLAG = 0x4 };
    char line[1024];
    const char *p = stat_fields(pid, line, sizeof line);
    if (!p)
        return 0;
    char state = 0;
    unsigned long flags = 0;
    if (sscanf(p, "%c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return 0;
    return state == 'Z' || state == 'X' || (flags & PF_EXITING_FLAG) || sigkill_in(pid, "SigPnd") ||
           sigkill_in(pid, "ShdPnd");
}
