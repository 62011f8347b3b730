/* scan.h - a static scan of candidate sources (PCRE2): lines that create streams, events or
 * threads, load code at run time, start or end processes, touch files, reach for the
 * harness's timer or channel, set persisting-L2 windows, or include vendor libraries. Each
 * finding is shown to the human with FILE:LINE; kwb eval can warn, block or skip. */
#ifndef KWB_SCAN_H
#define KWB_SCAN_H

#include "error.h"

/* What kwb eval does with findings. */
typedef enum scan_mode { SCAN_WARN, SCAN_BLOCK, SCAN_OFF } scan_mode;

/* One line that matched a rule. */
typedef struct scan_finding {
    char *file;       /* the path as given */
    int line;         /* 1-based */
    const char *rule; /* the rule's name ("thread", "process", ...) */
    char *text;       /* the line, trimmed, at most 160 characters */
} scan_finding;

typedef struct scan_report {
    scan_finding *items;
    int n;
} scan_report;

/* Parses "warn", "block" or "off"; returns 0, or -1 when unknown. */
int scan_mode_parse(const char *s, scan_mode *mode);
/* Scans the text of PATH, adding its findings to *rep. Returns 0, or -1 with *err set when it
 * cannot be read. */
int scan_file(const char *path, scan_report *rep, kwb_error *err);
/* Scans TEXT as if it were the file NAME (same rules as scan_file). */
void scan_text(const char *name, const char *text, scan_report *rep);
/* Frees the findings of rep. */
void scan_report_free(scan_report *rep);

#endif
