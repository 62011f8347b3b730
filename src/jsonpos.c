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

/* Appends code point CP to out as UTF-8. */
static size_t put_utf8(char *out, size_t n, size_t cap, unsigned cp)
{
    unsigned char b[4];
    size_t k;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        k = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xc0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        k = 4;
    }
    for (size_t i = 0; i < k && n + 1 < cap; i++)
        out[n++] = (char)b[i];
    return n;
}

/* Reads 4 hex digits at p (p + 4 <= end); -1 when they are not hex. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Decodes the escape after a backslash at s->p (which points at the backslash). */
static size_t scan_escape(scanner *s, char *out, size_t n, size_t cap)
{
    static const char from[] = "nrtbf", to[] = "\n\r\t\b\f";
    char c = s->p[1];
    const char *k = strchr(from, c);
    s->p += 2;
    if (c != 'u' || s->end - s->p < 4 || hex4(s->p) < 0)
        return out && n + 1 < cap ? (out[n] = (c && k) ? to[k - from] : c, n + 1) : n;
    unsigned cp = (unsigned)hex4(s->p);
    s->p += 4;
    if (cp >= 0xd800 && cp < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' && s->p[1] == 'u' &&
        hex4(s->p + 2) >= 0xdc00) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)hex4(s->p + 2) - 0xdc00);
        s->p += 6;
    }
    return out ? put_utf8(out, n, cap, cp) : n;
}

/* Skips a string at s->p (which is '"'); decodes up to cap-1 bytes into out. */
static void scan_string(scanner *s, char *out, size_t cap)
{
    size_t n = 0;
    s->p++;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\' && s->p + 1 < s->end) {
            n = scan_escape(s, out, n, cap);
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
    else if (*s->p == ']' || *s->p == '}' || *s->p == '\0')
        s->p++; /* another container's closing bracket, or a NUL byte: step over it, or callers loop forever */
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

char *jsonpos_token(const char *name, char *buf, size_t cap)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 3 < cap; p++) {
        if (*p == '~' || *p == '/') {
            buf[n++] = '~';
            buf[n++] = *p == '~' ? '0' : '1';
        } else
            buf[n++] = *p;
    }
    buf[n] = '\0';
    return buf;
}
