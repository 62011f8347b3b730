#include "jsonpos.h"

#include <stdlib.h>
#include <string.h>

typedef struct scanner {
    const char *p;
    const char *end;
    int line;
} scanner;

static void scan_space(scanner *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        if (*s->p == '\n')
            s->line++;
        s->p++;
    }
}

/* Skips a string at s->p (which is '"'); copies up to cap-1 raw bytes into out. */
static void scan_string(scanner *s, char *out, size_t cap)
{
    size_t n = 0;
    s->p++;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' && s->p + 1 < s->end) {
            if (out && n + 1 < cap)
                out[n++] = s->p[1];
            s->p += 2;
            continue;
        }
        if (*s->p == '\n')
            s->line++;
        if (out && n + 1 < cap)
            out[n++] = *s->p;
        s->p++;
    }
    if (s->p < s->end)
        s->p++;
    if (out)
        out[n] = '\0';
}

static void scan_value(scanner *s);

static void scan_container(scanner *s, char close)
{
    s->p++;
    for (;;) {
        scan_space(s);
        if (s->p >= s->end)
            return;
        if (*s->p == close) {
            s->p++;
            return;
        }
        if (*s->p == ',' || *s->p == ':') {
            s->p++;
            continue;
        }
        scan_value(s);
    }
}

static void scan_value(scanner *s)
{
    scan_space(s);
    if (s->p >= s->end)
        return;
    if (*s->p == '"')
        scan_string(s, NULL, 0);
    else if (*s->p == '{')
        scan_container(s, '}');
    else if (*s->p == '[')
        scan_container(s, ']');
    else
        while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
            s->p++;
}

/* Next pointer token from *ptr into tok (with ~1 -> / and ~0 -> ~); 0 at the end. */
static int next_token(const char **ptr, char *tok, size_t cap)
{
    if (**ptr != '/')
        return 0;
    (*ptr)++;
    size_t n = 0;
    while (**ptr && **ptr != '/') {
        char c = **ptr;
        if (c == '~' && ((*ptr)[1] == '0' || (*ptr)[1] == '1')) {
            c = (*ptr)[1] == '0' ? '~' : '/';
            (*ptr)++;
        }
        if (n + 1 < cap)
            tok[n++] = c;
        (*ptr)++;
    }
    tok[n] = '\0';
    return 1;
}

/* Moves s to the member TOKEN of the object at s->p; returns 0 when found. */
static int enter_object(scanner *s, const char *token)
{
    char key[512];
    s->p++;
    for (;;) {
        scan_space(s);
        if (s->p >= s->end || *s->p == '}')
            return -1;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        scan_string(s, key, sizeof key);
        scan_space(s);
        if (s->p < s->end && *s->p == ':')
            s->p++;
        scan_space(s);
        if (strcmp(key, token) == 0)
            return 0;
        scan_value(s);
    }
}

/* Moves s to element TOKEN (a decimal index) of the array at s->p; 0 when found. */
static int enter_array(scanner *s, const char *token)
{
    char *endp;
    long want = strtol(token, &endp, 10);
    if (*token == '\0' || *endp != '\0' || want < 0)
        return -1;
    s->p++;
    for (long i = 0;; i++) {
        scan_space(s);
        if (s->p >= s->end || *s->p == ']')
            return -1;
        if (i == want)
            return 0;
        scan_value(s);
        scan_space(s);
        if (s->p < s->end && *s->p == ',')
            s->p++;
    }
}

int jsonpos_line(const char *text, size_t len, const char *pointer)
{
    scanner s = {text, text + len, 1};
    char token[512];
    scan_space(&s);
    while (s.p < s.end && next_token(&pointer, token, sizeof token)) {
        scanner save = s;
        int rc = -1;
        if (*s.p == '{')
            rc = enter_object(&s, token);
        else if (*s.p == '[')
            rc = enter_array(&s, token);
        if (rc != 0)
            return save.line;
        scan_space(&s);
    }
    return s.line;
}
