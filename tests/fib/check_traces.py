"""Reads kwb's traces with flashinfer-bench's own models (Trace, TraceSet) and checks the
fields FlashInfer-Bench relies on. argv: TRACESET_DIR KWB_JSON_PASS NAME_PASS NAME_NAN HARDWARE.
Prints one "ok: ..." line per check; exits 1 on the first failure."""
import json
import math
import os
import sys

if os.environ.get("KWB_FIB_PLACEHOLDERS"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import placeholder  # noqa: F401  (torch & co. are imported by flashinfer-bench, never run here)

from flashinfer_bench.data import EvaluationStatus, Trace, TraceSet

root, kwb_json, name_pass, name_nan, hardware = sys.argv[1:6]


def check(cond, what):
    if not cond:
        print("FAIL: " + what)
        sys.exit(1)
    print("ok: " + what)


lines = {}
for sub in ("pass", "nan"):
    path = os.path.join(root, "traces", "kwb", "gdn", sub + ".jsonl")
    with open(path) as f:
        lines[sub] = [Trace.model_validate_json(line) for line in f if line.strip()]
    check(len(lines[sub]) == 2, "%s: every line validates as a Trace" % sub)

for sub, name in (("pass", name_pass), ("nan", name_nan)):
    for t in lines[sub]:
        check(t.solution == name, "solution is the solution's name (%s)" % t.solution)
for t in lines["pass"] + lines["nan"]:
    check(t.evaluation.environment.hardware == hardware, "hardware is the device's name (%s)" % hardware)
    libs = t.evaluation.environment.libs
    check("kwb" in libs and "kwb-runner" in libs, "libs name kwb and kwb-runner: %s" % libs)

with open(kwb_json) as f:
    rows = {r["uuid"]: r for r in json.load(f)["workloads"]}
for t in lines["pass"]:
    ev = t.evaluation
    check(ev.status == EvaluationStatus.PASSED, "passing candidate: PASSED")
    lat = rows[t.workload.uuid]["latency"]
    want = lat["mean_ms"]
    check(abs(ev.performance.latency_ms - want) <= 1e-9 * max(1.0, want),
          "latency_ms is kwb's mean (%.6g = %.6g)" % (ev.performance.latency_ms, want))
    check(lat["median_ms"] > 0, "kwb's own record keeps the median (%.6g)" % lat["median_ms"])
    check(math.isfinite(ev.correctness.max_absolute_error), "passing: finite max_absolute_error")

for t in lines["nan"]:
    ev = t.evaluation
    check(ev.status == EvaluationStatus.INCORRECT_NUMERICAL, "NaN candidate: INCORRECT_NUMERICAL")
    check(math.isnan(ev.correctness.max_absolute_error), "NaN candidate: max_absolute_error is NaN")
    check(math.isnan(ev.correctness.max_relative_error), "NaN candidate: max_relative_error is NaN")
    check(ev.performance is None, "NaN candidate: no performance block")

ts = TraceSet.from_path(root)
got = ts.summary()
check(got["total"] == 4 and got["passed"] == 2 and got["failed"] == 2,
      "TraceSet.summary counts 4 traces, 2 passed, 2 failed: %s" % got)
