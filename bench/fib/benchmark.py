"""bench/fib/benchmark.py DEFINITION SO UUID... - FlashInfer-Bench's own Benchmark (its default
BenchmarkConfig: 10 warm-up runs, 50 iterations, 3 trials, the reference timed; the isolated
runner) on the kwb solution library SO (bench/fib/kwb_ctypes.py), one workload at a time from
the shipped workloads/, printing per workload the wall time of run_all, the status and the latency;
then the precision of that latency: FlashInfer-Bench's figure is the mean of its trials' means
(num_trials input sets, `iterations` timed calls each, by its own do_bench with its L2 clearing and
argument cloning), so the same timing is run again in this process with every sample kept, and the
95 % CI half-width of the figure is printed two ways: of the mean of all samples (normal) and from
the trials' means (Student t, num_trials - 1 degrees of freedom), each relative to the figure. Needs torch and flashinfer-bench (bench/RESULTS.md says
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
        precision(ts, defname, cfg, u)
        shutil.rmtree(root, ignore_errors=True)


# Student's t at 0.975 for 1-9 degrees of freedom (the trials' means).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262]


def precision(ts, defname, cfg, uuid):
    """Prints the CI half-width of FlashInfer-Bench's latency figure for the one workload of ts."""
    import statistics
    import torch
    from flashinfer_bench.bench.evaluators.utils import allocate_outputs
    from flashinfer_bench.bench.timing import _clone_args, do_bench
    from flashinfer_bench.bench.utils import gen_inputs, load_safetensors
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import kwb_ctypes

    definition = ts.definitions[defname]
    workload = ts.workloads[defname][0].workload
    safe = load_safetensors(definition, workload, ts.root) if any(
        d.type == "safetensors" for d in workload.inputs.values()) else {}
    means, every = [], []
    for _ in range(cfg.num_trials):
        inp = gen_inputs(definition, workload, device="cuda:0", safe_tensors=safe)
        args = list(inp) + allocate_outputs(definition, inp, "cuda:0")
        times = do_bench(lambda a: kwb_ctypes.run(*a), warmup=cfg.warmup_runs, rep=cfg.iterations,
                         setup=lambda: _clone_args(args), return_mode="all")
        means.append(statistics.mean(times))
        every += times
    fig = statistics.mean(means)
    hw_all = 1.96 * statistics.stdev(every) / len(every) ** 0.5
    k = len(means)
    hw_trials = T975[k - 2] * statistics.stdev(means) / k ** 0.5 if 2 <= k <= 10 else float("nan")
    print(f"fib-precision {defname} {uuid} latency_ms {fig:.6f} samples {len(every)} "
          f"ci_rel_samples {hw_all / fig:.5f} ci_rel_trials {hw_trials / fig:.5f}", flush=True)


if __name__ == "__main__":
    main()
