/* traceset.h - a FlashInfer-Bench TraceSet root: definitions/, workloads/, blob/. */
#ifndef KWB_TRACESET_H
#define KWB_TRACESET_H

#include "definition.h"
#include "error.h"
#include "workload.h"

/* Path of ROOT/definitions/ (any depth) NAME.json. Returns a string the caller frees, or NULL and
 * sets *err when there is none. */
char *traceset_definition_path(const char *root, const char *name, kwb_error *err);
/* Path of ROOT/workloads/ (any depth) NAME.jsonl, or NULL (and *err set) when there is none. */
char *traceset_workloads_path(const char *root, const char *name, kwb_error *err);
/* Path of ROOT/heldout/NAME.jsonl, the held-out workloads of NAME (the file may not exist).
 * The caller frees the result. */
char *traceset_held_out_path(const char *root, const char *name);
/* Loads the definition NAME and all its workloads from ROOT into *def and *set.
 * Returns 0, or -1 with *err set and nothing loaded. */
int traceset_load(const char *root, const char *name, definition **def, workload_set *set, kwb_error *err);
/* Resolves a safetensors path of a workload ("blob/..." or "./blob/...") against ROOT;
 * the caller frees the result. */
char *traceset_blob_path(const char *root, const char *path);

#endif
