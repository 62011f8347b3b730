/* costexpr.h - arithmetic over a definition's axes, for the cost model (bytes and FLOPs
 * per workload, DESIGN.md section 10): numbers, axis names, + - * / and parentheses,
 * unary minus, and the functions min(a, b), max(a, b) and ceil(x). Compiled once against
 * the axis names, evaluated per workload in double precision. */
#ifndef KWB_COSTEXPR_H
#define KWB_COSTEXPR_H

#include <stdint.h>

#include "error.h"

typedef struct costexpr costexpr;

/* Compiles TEXT, where a name must be one of the NNAMES in NAMES (its index is what
 * evaluation looks up). Returns NULL and sets *err to "column C: problem" when TEXT is not
 * an expression or names something unknown. */
costexpr *costexpr_compile(const char *text, const char *const *names, int nnames, kwb_error *err);
/* The value of E with name i bound to VALUES[i]. Division by zero gives inf or NaN. */
double costexpr_eval(const costexpr *e, const int64_t *values);
/* The source text E was compiled from. */
const char *costexpr_text(const costexpr *e);
/* Frees e; NULL is allowed. */
void costexpr_free(costexpr *e);

#endif
