/* ncu.h - Nsight Compute's raw page as CSV (`ncu --csv --page raw --print-units base`): one
 * header row of column names, an optional row of units, then one row per profiled kernel
 * launch. Metrics are read by name; a number in base units (ns, bytes, %) or NaN. */
#ifndef KWB_NCU_H
#define KWB_NCU_H

#include <stddef.h>

#include "error.h"

typedef struct ncu_table {
    char **columns; /* header names */
    int ncolumns;
    char ***rows; /* rows[r][c] */
    int nrows;
} ncu_table;

/* Parses CSV TEXT (LEN bytes; lines ncu prints before the header, "==PROF==" and the like, are
 * skipped) into *t. Returns 0, or -1 with *err = "LABEL:LINE: problem" when there is no
 * header or a row has the wrong number of cells. */
int ncu_parse(const char *text, size_t len, const char *label, ncu_table *t, kwb_error *err);
/* Index of column NAME, or -1. */
int ncu_column(const ncu_table *t, const char *name);
/* The number in row R of column NAME (thousands separators dropped); NaN when the column is
 * missing or the cell is not a number. */
double ncu_number(const ncu_table *t, int r, const char *name);
/* The text in row R of column NAME, or NULL. */
const char *ncu_text(const ncu_table *t, int r, const char *name);
/* Frees what t owns. */
void ncu_free(ncu_table *t);

/* What `ptxas -v` (nvcc -Xptxas -v) reported for one kernel. */
typedef struct ptxas_usage {
    char name[256];
    int registers;
    int spill_stores, spill_loads; /* bytes */
    int stack;                     /* bytes of stack frame */
    int smem;                      /* bytes of shared memory */
} ptxas_usage;

/* Parses the compiler's resource report in TEXT (PCRE2) into *out (up to MAX kernels, in the
 * order reported); returns the count, 0 when TEXT has none. */
int ptxas_parse(const char *text, ptxas_usage *out, int max);

#endif
