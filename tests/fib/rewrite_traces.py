"""Writes, with flashinfer-bench's own models and serializer, a copy of a TraceSet's traces:
each kwb trace rebuilt field by field as FlashInfer-Bench would write it. argv: SRC DST."""
import os
import shutil
import sys

if os.environ.get("KWB_FIB_PLACEHOLDERS"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import placeholder  # noqa: F401

from flashinfer_bench.data import (Correctness, Environment, Evaluation, Performance, Trace,
                                   save_jsonl_file)

src, dst = sys.argv[1:3]
shutil.copytree(os.path.join(src, "definitions"), os.path.join(dst, "definitions"))
shutil.copytree(os.path.join(src, "workloads"), os.path.join(dst, "workloads"))
tdir = os.path.join(src, "traces", "kwb", "gdn")
for name in sorted(os.listdir(tdir)):
    out = []
    with open(os.path.join(tdir, name)) as f:
        for line in f:
            t = Trace.model_validate_json(line)
            ev = t.evaluation
            c = ev.correctness
            p = ev.performance
            out.append(Trace(
                definition=t.definition, workload=t.workload, solution=t.solution,
                evaluation=Evaluation(
                    status=ev.status, log=ev.log, timestamp=ev.timestamp,
                    environment=Environment(hardware=ev.environment.hardware, libs=dict(ev.environment.libs)),
                    correctness=None if c is None else Correctness(
                        max_relative_error=c.max_relative_error, max_absolute_error=c.max_absolute_error),
                    performance=None if p is None else Performance(
                        latency_ms=p.latency_ms, reference_latency_ms=p.reference_latency_ms,
                        speedup_factor=p.speedup_factor))))
    os.makedirs(os.path.join(dst, "traces", "fib", "gdn"), exist_ok=True)
    save_jsonl_file(out, os.path.join(dst, "traces", "fib", "gdn", name))
