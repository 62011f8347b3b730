/* channel.h - the runner's result channel sealed against forgery: every event line carries
 * a sequence number and a tag, SHA-256 over a per-job secret key, the number and the line,
 * so that a candidate writing to the event descriptor (it shares the runner's process)
 * cannot add, drop or alter events without the parent noticing. */
#ifndef KWB_CHANNEL_H
#define KWB_CHANNEL_H

#include <jansson.h>
#include <stddef.h>

/* Length of a key as written in the job (hex digits). */
#define CHANNEL_KEY_HEX 32

/* Fills KEY (CHANNEL_KEY_HEX + 1 bytes) with a fresh random key in hex; returns 0 or -1. */
int channel_new_key(char *key);
/* EV as one sealed line (no newline): "seq":SEQ is added to it, then the tag. The caller
 * frees the line; NULL when EV cannot be encoded. */
char *channel_seal(const char *key, unsigned long seq, json_t *ev);
/* Checks and strips the tag of LINE in place; returns 0 when the tag is right and the line's
 * "seq" is EXPECTED_SEQ, else -1 with WHY (a static string) set. */
int channel_open(const char *key, unsigned long expected_seq, char *line, const char **why);

#endif
