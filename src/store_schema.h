/* store_schema.h - the store's SQL schema as numbered migration steps (store.c applies them). */
#ifndef KWB_STORE_SCHEMA_H
#define KWB_STORE_SCHEMA_H

/* Step N (0-based) takes user_version N to N + 1, in one transaction; each ends by setting
 * user_version itself. Steps are never edited once released: a change of schema is a new step. */
extern const char *const store_schema[];
/* The number of steps: the schema version of a store that has them all. */
extern const int store_schema_steps;

#endif
