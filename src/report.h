/* report.h - a tuning session's report, rendered from a JSON model (no database here).
 *
 * The model (the lead builds it from the store; every string is escaped where a format needs it):
 *
 *   {"session": "s1",                              required string
 *    "definition": "gdn_decode_qk4_v8_d128_k_last", required string
 *    "device": "cpu",                              required string
 *    "candidates": [                               required array of
 *      {"id": 1,                                   required integer
 *       "name": "baseline",                        required string
 *       "parent": null, "origin": "baseline",      integer / string, or null or absent
 *       "commit": "abc123...", "state": "evaluated", strings, or null or absent
 *       "mean_ms": 0.81}],                         number, or null or absent
 *    "rounds": [                                   required array (may be empty) of
 *      {"number": 1,                               required integer
 *       "title": "fuse passes", "state": "done",   strings, or null or absent
 *       "candidate": 2,                            integer (a candidate's id), or null or absent
 *       "best_mean_ms": 0.52,                      number, or null or absent
 *       "speedup": 1.55}],                         number (vs the baseline), or null or absent
 *    "workloads": [                                required array of
 *      {"uuid": "901e5104-...",                    required string
 *       "axes": {"batch_size": 1},                 object, or null or absent
 *       "status": "PASSED",                        required string
 *       "best_ms": 0.041, "baseline_ms": 0.288,    numbers, or null or absent
 *       "reference_ms": 0.27, "speedup": 6.99,
 *       "max_abs": 7e-6, "max_rel": 0.26,
 *       "message": null}],                         string, or null or absent
 *    "traces": [{...}, ...]}                       array of objects (FlashInfer-Bench traces), or absent
 *
 * Formats:
 *   md      a header, the per-workload table and the round trajectory table (GitHub Markdown)
 *   csv     the per-workload table, RFC 4180: CRLF line ends, fields with , " CR or LF quoted,
 *           quotes doubled; columns uuid,axes,status,best_ms,baseline_ms,reference_ms,speedup,
 *           max_abs,max_rel,message (null is an empty field; axes as "k=v, k=v")
 *   json    the model itself, pretty-printed (2-space indent), one trailing newline
 *   traces  one compact JSON line per element of "traces" (nothing when there are none)
 *   html    one self-contained page (inline CSS and SVG, no scripts, no external references):
 *           <svg id="speedup-chart"> speedup per round, <svg id="latency-bars"> best vs baseline
 *           per workload, <table id="workloads"> the per-workload rows
 */
#ifndef KWB_REPORT_H
#define KWB_REPORT_H

#include <jansson.h>

#include "error.h"
#include "strbuf.h"

/* The format names report_render accepts, as "md, csv, json, traces, html". */
const char *report_formats(void);

/* Checks MODEL against the shape above; -1 with the offending field named in err. */
int report_validate(const json_t *model, kwb_error *err);

/* Validates MODEL and appends its rendering in FORMAT to OUT (initialized by the caller);
 * -1 with err set (OUT unchanged) on an invalid model or an unknown format. */
int report_render(const json_t *model, const char *format, strbuf *out, kwb_error *err);

#endif
