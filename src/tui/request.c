/* request.c - the request table, key names and bindings (see request.h). */
#include "tui/request.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/surface.h"

typedef struct request_info {
    const char *name, *help, *keys;
} request_info;

static const request_info requests[] = {{"", "", ""},
#define TUI_REQ_INFO(id, name, help, keys) {name, help, keys},
                                        TUI_REQUESTS(TUI_REQ_INFO)
#undef TUI_REQ_INFO
};

const char *request_name(int req)
{
    return req > 0 && req < REQ_COUNT ? requests[req].name : "";
}

const char *request_help(int req)
{
    return req > 0 && req < REQ_COUNT ? requests[req].help : "";
}

int request_find(const char *name)
{
    for (int i = 1; i < REQ_COUNT; i++)
        if (strcmp(requests[i].name, name) == 0)
            return i;
    return REQ_NONE;
}

static const struct {
    const char *name;
    int key;
} named_keys[] = {
    {"Enter", TUI_KEY_ENTER},
    {"Esc", TUI_KEY_ESC},
    {"Tab", TUI_KEY_TAB},
    {"S-Tab", KEY_BTAB},
    {"Space", ' '},
    {"Up", KEY_UP},
    {"Down", KEY_DOWN},
    {"Left", KEY_LEFT},
    {"Right", KEY_RIGHT},
    {"PgUp", KEY_PPAGE},
    {"PgDn", KEY_NPAGE},
    {"Home", KEY_HOME},
    {"End", KEY_END},
    {"Backspace", KEY_BACKSPACE},
    {"Del", KEY_DC},
    {"Resize", KEY_RESIZE},
    {"lt", '<'},
    {"gt", '>'},
};

int key_parse(const char **p)
{
    const char *s = *p;
    if (s[0] == '<' && s[1] && strchr(s + 1, '>') && strchr(s + 1, '>') - s > 1) {
        const char *end = strchr(s + 1, '>');
        char name[32];
        size_t len = (size_t)(end - s - 1);
        if (len >= sizeof name)
            return -1;
        memcpy(name, s + 1, len);
        name[len] = '\0';
        *p = end + 1;
        for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
            if (strcasecmp(name, named_keys[i].name) == 0)
                return named_keys[i].key;
        if ((name[0] == 'C' || name[0] == 'c') && name[1] == '-' && name[2] && !name[3])
            return (name[2] | 0x20) & 0x1f;
        if ((name[0] == 'F' || name[0] == 'f') && atoi(name + 1) >= 1 && atoi(name + 1) <= 12)
            return KEY_F(atoi(name + 1));
        return -1;
    }
    uint32_t cp;
    *p += tui_utf8_decode(s, &cp);
    return (int)cp;
}

const char *tui_key_name(int key, char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
        if (named_keys[i].key == key && key != '<' && key != '>') {
            snprintf(buf, cap, "<%s>", named_keys[i].name);
            return buf;
        }
    if (key >= KEY_F(1) && key <= KEY_F(12))
        snprintf(buf, cap, "<F%d>", key - KEY_F(0));
    else if (key > 0 && key < 32)
        snprintf(buf, cap, "<C-%c>", key + 'a' - 1);
    else if (key < 0x110000 && key >= 32)
        tui_utf8_encode((uint32_t)key, buf);
    else
        snprintf(buf, cap, "<%d>", key);
    return buf;
}

void keymap_bind(keymap *km, int scope, int key, int req)
{
    for (int i = 0; i < km->n; i++)
        if (km->e[i].scope == scope && km->e[i].key == key) {
            km->e[i].req = req;
            return;
        }
    if (km->n < KEYMAP_MAX)
        km->e[km->n++] = (keymap_entry){scope, key, req};
}

void keymap_defaults(keymap *km)
{
    km->n = 0;
    for (int r = 1; r < REQ_COUNT; r++) {
        const char *p = requests[r].keys;
        while (*p) {
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            int key = key_parse(&p);
            if (key >= 0)
                keymap_bind(km, 0, key, r);
        }
    }
}

int keymap_lookup(const keymap *km, int scope, int key)
{
    int generic = REQ_NONE;
    for (int i = 0; i < km->n; i++)
        if (km->e[i].key == key) {
            if (km->e[i].scope == scope && scope != 0)
                return km->e[i].req;
            if (km->e[i].scope == 0)
                generic = km->e[i].req;
        }
    return generic;
}

int keymap_bind_words(keymap *km, const char *const *scope_names, char **w, int n, kwb_error *err)
{
    if (n != 3)
        return kwb_error_set(err, "bind: want SCOPE KEY REQUEST");
    int scope = -1;
    if (strcmp(w[0], "generic") == 0)
        scope = 0;
    for (int i = 1; i < KEYMAP_SCOPES && scope_names[i]; i++)
        if (strcmp(w[0], scope_names[i]) == 0)
            scope = i;
    if (scope < 0)
        return kwb_error_set(err, "bind: unknown scope '%s' (generic or a pane name)", w[0]);
    const char *p = w[1];
    int key = key_parse(&p);
    if (key < 0 || *p)
        return kwb_error_set(err, "bind: unknown key '%s'", w[1]);
    int req = strcmp(w[2], "none") == 0 ? REQ_NONE : request_find(w[2]);
    if (req == REQ_NONE && strcmp(w[2], "none") != 0)
        return kwb_error_set(err, "bind: unknown request '%s'", w[2]);
    keymap_bind(km, scope, key, req);
    return 0;
}

const char *keymap_keys_of(const keymap *km, int req, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < km->n && used + 16 < cap; i++)
        if (km->e[i].req == req) {
            char name[32];
            used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? " " : "",
                                     tui_key_name(km->e[i].key, name, sizeof name));
        }
    return buf;
}
