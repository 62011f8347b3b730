/* channel.c - sealed event lines (see channel.h). */
#include "channel.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "xalloc.h"

static const char TAG_FIELD[] = ",\"tag\":\"";

int channel_new_key(char *key)
{
    unsigned char raw[CHANNEL_KEY_HEX / 2];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)sizeof raw)
        return -1;
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(key + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* The tag of BODY (LEN bytes) under KEY, in hex. */
static void tag_of(const char *key, const char *body, size_t len, char out[65])
{
    sha256_ctx c;
    uint8_t d[32];
    sha256_init(&c);
    sha256_update(&c, key, strlen(key));
    sha256_update(&c, body, len);
    sha256_final(&c, d);
    sha256_hex(d, out);
}

char *channel_seal(const char *key, unsigned long seq, json_t *ev)
{
    json_object_set_new(ev, "seq", json_integer((json_int_t)seq));
    char *body = json_dumps(ev, JSON_COMPACT);
    if (!body)
        return NULL;
    size_t len = strlen(body); /* ends with '}' */
    char tag[65];
    tag_of(key, body, len - 1, tag);
    char *line = xasprintf("%.*s%s%s\"}", (int)(len - 1), body, TAG_FIELD, tag);
    free(body);
    return line;
}

int channel_open(const char *key, unsigned long expected_seq, char *line, const char **why)
{
    size_t len = strlen(line), flen = strlen(TAG_FIELD);
    if (len < flen + 64 + 3 || strcmp(line + len - 2, "\"}") != 0 ||
        strncmp(line + len - 2 - 64 - flen, TAG_FIELD, flen) != 0) {
        *why = "an event without the job's tag";
        return -1;
    }
    size_t body_len = len - 2 - 64 - flen;
    char want[65];
    tag_of(key, line, body_len, want);
    if (memcmp(want, line + body_len + flen, 64) != 0) {
        *why = "an event with a wrong tag (forged or altered)";
        return -1;
    }
    line[body_len] = '}';
    line[body_len + 1] = '\0';
    json_t *o = json_loads(line, 0, NULL);
    json_t *seq = json_object_get(o, "seq");
    int ok = json_is_integer(seq) && (unsigned long)json_integer_value(seq) == expected_seq;
    json_decref(o);
    if (!ok) {
        *why = "an event out of sequence (replayed or dropped)";
        return -1;
    }
    return 0;
}
