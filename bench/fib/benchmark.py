"""bench/fib/benchmark.py DEFINITION SO UUID... - FlashInfer-Bench's own Benchmark (its default
BenchmarkConfig: 10 warm-up runs, 50 iterations, 3 trials, the reference timed; the isolated
runner) on the kwb solution library SO (bench/fib/kwb_ctypes.py), one workload at a time from
the shipped workloads/, printing per workload the wall time of run_all, the status, the latency
and FlashInfer-Bench's own spread of it. Needs torch and flashinfer-bench (bench/RESULTS.md says
how it was carried to the GPU machine)."""
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import flashinfer_bench as fib


def main():
    # FlashInfer-Bench's isolated runner starts processes by spawn, which imports this file again:
    # everything runs under the main guard.
    here = Path(__file__).resolve().parent
    top = here.parent.parent / "workloads"
    defname, so, uuids = sys.argv[1], sys.argv[2], sys.argv[3:]
    defpath = next(top.glob(f"definitions/*/{defname}.json"))
    wlpath = next(top.glob(f"workloads/*/{defname}.jsonl"))
    os.environ["KWB_FIB_SO"], os.environ["KWB_FIB_DEF"] = os.path.abspath(so), str(defpath)
    lines = {json.loads(l)["workload"]["uuid"][:len(u)]: l for l in open(wlpath) for u in uuids
             if json.loads(l)["workload"]["uuid"].startswith(u)}
    for u in uuids:
        root = Path(tempfile.mkdtemp())
        (root / "definitions").mkdir()
        shutil.copy(defpath, root / "definitions")
        (root / "workloads").mkdir()
        (root / "workloads" / f"{defname}.jsonl").write_text(lines[u])
        if (top / "blob").exists():
            os.symlink(top / "blob", root / "blob")
        (root / "solutions").mkdir()
        sol = {"name": "kwb_ctypes", "definition": defname, "author": "kwb",
               "spec": {"language": "python", "target_hardware": ["H200"], "entry_point": "main.py::run",
                        "dependencies": [], "destination_passing_style": True},
               "sources": [{"path": "main.py", "content": (here / "kwb_ctypes.py").read_text()}]}
        (root / "solutions" / "kwb_ctypes.json").write_text(json.dumps(sol))
        ts = fib.TraceSet.from_path(str(root))
        cfg = fib.BenchmarkConfig(use_isolated_runner=True, definitions=[defname])
        t0 = time.time()
        out = fib.Benchmark(ts, cfg).run_all(dump_traces=False)
        wall = time.time() - t0
        for tr in out.traces.get(defname, []):
            ev = tr.evaluation
            perf = ev.performance if ev else None
            print(f"fib {defname} {u} wall_s {wall:.2f} status {ev.status if ev else None} "
                  f"latency_ms {perf.latency_ms if perf else None} reference_ms {perf.reference_latency_ms if perf else None}",
                  flush=True)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
