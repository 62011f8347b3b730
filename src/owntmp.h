/* owntmp.h - temporary folders named for the process that owns them, under $TMPDIR (else /tmp):
 * "kwb-KIND-HOST-PID-START-XXXXXX", where START is the owner's start time since boot (a reused
 * pid does not pass for the owner). Making one first removes the folders of the same kind whose
 * owner on this host no longer runs and that have been left unchanged for a minute: what a kwb
 * killed with SIGKILL left is taken away by a later one, never a live process's folder, a folder
 * in use, another host's or another user's. */
#ifndef KWB_OWNTMP_H
#define KWB_OWNTMP_H

#include "error.h"

/* A fresh folder of KIND (letters only, e.g. "scratch") owned by this process, after stale ones
 * of that kind are removed; the caller frees the path. NULL with *err set when it cannot be made. */
char *owntmp_make(const char *kind, kwb_error *err);

/* owntmp_make in folder DIR (which must exist; NULL: $TMPDIR, else /tmp), its stale folders of
 * KIND swept first: e.g. a build's work folder beside the cache entries it is renamed to. */
char *owntmp_make_in(const char *dir, const char *kind, kwb_error *err);

/* Removes the folders of KIND in TMPDIR (NULL: $TMPDIR, else /tmp) that belong to this user on
 * this host, whose owner process is gone and that nothing changed for a minute. Returns how many
 * were removed. */
int owntmp_sweep(const char *tmpdir, const char *kind);

#endif
