/* words.c - line splitting shared by config, theme and script parsers (see words.h). */
#include "tui/words.h"

int words_split(char *line, char **w, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p || *p == '#')
            break;
        char *out = p;
        w[n++] = out;
        if (*p == '"') {
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    p++;
                *out++ = *p++;
            }
            if (*p)
                p++;
        } else {
            while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
                *out++ = *p++;
        }
        int end = !*p;
        if (!end)
            p++;
        *out = '\0';
        if (end)
            break;
    }
    return n;
}
