#!/usr/bin/env python3
"""tests/gpu/conformance.py - checks kwb's references against a definition's PyTorch reference.

Reads the dumps `kwb dump` writes (DIR/UUID.safetensors: in.NAME inputs, out.NAME outputs of
kwb's reference, __metadata__), parsed here without the `safetensors` package.

  conformance.py --definition FILE DIR            run the definition's "reference" source on each
                                                  dump's inputs with PyTorch and compare kwb's
                                                  outputs with its outputs
  conformance.py --definition FILE --cross A B    two dumps of the same workloads (say cpu, cuda):
                                                  inputs bit-identical, B's outputs close to A's

An element passes under FlashInfer-Bench's rule (`--rule fib`, the default, as kwb's check.c):
it fails only when |got-want| > atol AND |got-want|/(|want|+1e-8) > rtol, in float32; under
`--rule allclose` it passes when |got-want| <= atol + rtol*|want|. NaN never passes; an infinity
passes only where `want` has the same one. An output passes when its matched ratio is at least
--matched-ratio (default 1). atol, rtol and the ratio default to the definition's own
"kwb": {"check": ...} settings where it has them, as in kwb eval. The DSA top-k's indices are
compared by score equivalence instead, as kwb's check does it: valid, reachable and distinct
indices whose sorted true scores match the other set's rank by rank. Prints a table and
`N passed, N failed` (workloads); exit status 0 when all passed, 1 otherwise, 2 for bad input, 77 when PyTorch (or its CUDA device) is missing.
Tests only: kwb itself never runs Python.
"""
import argparse
import glob
import json
import os
import sys
import traceback

SKIP = 77

try:
    import torch
except ImportError as e:  # the harness's machines without PyTorch skip
    print(f"SKIP: conformance needs PyTorch ({e}); run it on a machine that has it", file=sys.stderr)
    sys.exit(SKIP)

DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
    "BOOL": torch.bool,
    "F8_E4M3": getattr(torch, "float8_e4m3fn", None), "F8_E5M2": getattr(torch, "float8_e5m2", None),
}


class DumpError(Exception):
    pass


class Dump:
    """One safetensors file: raw bytes per tensor, dtype names, shapes and the metadata."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            data = f.read()
        if len(data) < 8:
            raise DumpError(f"{path}: too short for a safetensors header")
        n = int.from_bytes(data[:8], "little")
        if n > len(data) - 8:
            raise DumpError(f"{path}: header length {n} goes beyond the file")
        try:
            header = json.loads(data[8:8 + n].decode("utf-8"))
        except ValueError as e:
            raise DumpError(f"{path}: header is not JSON: {e}")
        self.meta = header.pop("__metadata__", {}) or {}
        self.entries = {}
        body = memoryview(data)[8 + n:]  # no copies: MoE dumps hold 1.4 GB of weights
        for name, desc in header.items():
            begin, end = desc["data_offsets"]
            if not 0 <= begin <= end <= len(body):
                raise DumpError(f"{path}: tensor '{name}': data_offsets {desc['data_offsets']} outside the file")
            self.entries[name] = (desc["dtype"], list(desc["shape"]), body[begin:end])

    def raw(self, name):
        return self.entries[name][2]

    def tensor(self, name):
        if name not in self.entries:
            raise DumpError(f"{self.path}: no tensor '{name}'")
        code, shape, raw = self.entries[name]
        dtype = DTYPES.get(code)
        if dtype is None:
            raise DumpError(f"{self.path}: tensor '{name}': dtype {code} unknown to this PyTorch")
        if len(raw) == 0:
            return torch.empty(shape, dtype=dtype)
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8)  # a copy: aligned and writable
        return flat.view(dtype).reshape(shape)


def element_check(got, want, rule, atol, rtol):
    """Per-element pass mask, |got-want| and the relative error: float32 for floating types
    (FlashInfer-Bench's arithmetic), float64 for integers."""
    floating = got.dtype.is_floating_point or want.dtype.is_floating_point
    g, w = (got.to(torch.float32), want.to(torch.float32)) if floating else (got.double(), want.double())
    diff = (g - w).abs()
    rel = diff / (w.abs() + 1e-8)
    ok = ~((diff > atol) & (rel > rtol)) if rule == "fib" else diff <= atol + rtol * w.abs()
    finite = torch.isfinite(g) & torch.isfinite(w)
    same_inf = torch.isinf(g) & (g == w)
    ok = (ok & finite) | same_inf
    zero = torch.zeros_like(diff)
    return ok, torch.where(finite, diff, zero), torch.where(finite, rel, zero), int((~finite & ~same_inf).sum())


def compare(got, want, args):
    """(passed, max_abs, max_rel, matched ratio, note) for one output: GOT against WANT."""
    if tuple(got.shape) != tuple(want.shape):
        return False, float("nan"), float("nan"), 0.0, f"shape {tuple(got.shape)}, want {tuple(want.shape)}"
    notes = [] if got.dtype == want.dtype else [f"dtype {got.dtype}, want {want.dtype}"]
    got, want = got.detach().cpu(), want.detach().cpu()
    if got.numel() == 0:
        return True, 0.0, 0.0, 1.0, "; ".join(notes)
    ok, diff, rel, nonfinite = element_check(got, want, args.rule, args.atol, args.rtol)
    matched = ok.double().mean().item()
    if nonfinite:
        notes.append(f"{nonfinite} NaN or unmatched inf")
    passed = matched >= args.matched_ratio and nonfinite == 0
    return passed, diff.max().item(), rel.max().item(), matched, "; ".join(notes)


def topk_scores(dump, indices):
    """DSA top-k: the true scores (float64) of the global token INDICES [B, K] from the dump's
    inputs (q, the deep_gemm FP8 K cache, weights); -inf where an index is padding or outside
    the cache (topk_problems reports those)."""
    q = dump.tensor("in.q_index_fp8").float().double()
    cache = dump.tensor("in.k_index_cache_fp8").view(torch.uint8)
    pages, page_size, _, row = cache.shape
    dim = row - 4
    flat = cache.reshape(pages, page_size * row)
    codes = flat[:, :page_size * dim].reshape(pages, page_size, dim)
    scales = flat[:, page_size * dim:].contiguous().view(torch.float32).reshape(pages, page_size)
    valid = (indices >= 0) & (indices < pages * page_size)  # the others count as padding here
    safe = torch.where(valid, indices, torch.zeros_like(indices)).long()
    page, offset = safe // page_size, safe % page_size
    k = codes[page, offset].contiguous().view(torch.float8_e4m3fn).float().double()  # [B, K, dim]
    k = k * scales[page, offset].double().unsqueeze(2)
    per_head = torch.einsum("bhd,bkd->bhk", q, k).relu()
    scores = (per_head * dump.tensor("in.weights").double().unsqueeze(2)).sum(dim=1)
    scores[~valid] = float("-inf")
    return scores


def topk_problems(dump, indices):
    """DSA top-k: why INDICES [B, K] are not a valid choice (unreachable through block_table and
    seq_lens, repeated, or negative but not -1), as a list of strings."""
    lens = dump.tensor("in.seq_lens").long()
    table = dump.tensor("in.block_table").long()
    page_size = dump.tensor("in.k_index_cache_fp8").shape[1]
    valid = indices >= 0
    safe = indices.long().clamp(min=0)
    slots = torch.arange(table.shape[1])
    in_use = slots.unsqueeze(0) < (lens.unsqueeze(1) + page_size - 1) // page_size  # [B, M]
    at = (safe // page_size).unsqueeze(2) == table.unsqueeze(1)  # [B, K, M]
    position = slots.view(1, 1, -1) * page_size + (safe % page_size).unsqueeze(2)
    reachable = (at & in_use.unsqueeze(1) & (position < lens.view(-1, 1, 1))).any(dim=2)
    problems = []
    for b in range(indices.shape[0]):
        bad = (valid[b] & ~reachable[b]) | (indices[b] < -1)
        if bad.any():
            problems.append(f"row {b}: {int(bad.sum())} unreachable index(es), first {int(indices[b][bad][0])}")
        chosen = indices[b][valid[b]].sort().values
        if (chosen[1:] == chosen[:-1]).any():
            problems.append(f"row {b}: a repeated index")
    return problems


def compare_topk(dump, got, want, args):
    """compare() for the DSA top-k's indices: score equivalence, not index equality (kwb's check,
    kernels/dsa_topk_.../topk_check.c): valid, reachable, unique indices whose sorted true scores
    match the sorted true scores of WANT's set, rank by rank, under the tolerance rule."""
    if tuple(got.shape) != tuple(want.shape):
        return False, float("nan"), float("nan"), 0.0, f"shape {tuple(got.shape)}, want {tuple(want.shape)}"
    got, want = got.detach().cpu(), want.detach().cpu()
    problems = topk_problems(dump, got) + [f"reference: {p}" for p in topk_problems(dump, want)]
    g = topk_scores(dump, got).sort(dim=1, descending=True).values
    w = topk_scores(dump, want).sort(dim=1, descending=True).values
    ok, diff, rel, nonfinite = element_check(g, w, args.rule, args.atol, args.rtol)
    matched = ok.double().mean().item() if ok.numel() else 1.0
    same = int((got.sort(dim=1).values == want.sort(dim=1).values).all(dim=1).sum())
    notes = [f"by score; {same} of {got.shape[0]} rows the same set"] + problems
    if nonfinite:
        notes.append(f"{nonfinite} rank(s) padded on one side only")
    passed = not problems and nonfinite == 0 and matched >= args.matched_ratio
    return passed, diff.max().item() if diff.numel() else 0.0, rel.max().item() if rel.numel() else 0.0, matched, \
        "; ".join(notes)


def compare_output(definition, dump, name, got, want, args):
    """compare() for one output; the DSA top-k's indices by score equivalence, with DUMP's inputs."""
    if definition["name"].startswith("dsa_topk_indexer") and name == "topk_indices":
        return compare_topk(dump, got, want, args)
    return compare(got, want, args)


def load_reference(definition):
    src = definition.get("reference")
    if not src:
        raise DumpError(f"definition '{definition.get('name')}' has no \"reference\" source")
    ns = {"__name__": "flashinfer_reference"}
    exec(compile(src, f"<{definition['name']} reference>", "exec"), ns)
    if not callable(ns.get("run")):
        raise DumpError(f"definition '{definition['name']}': the reference defines no run()")
    return ns["run"]


def reference_inputs(definition, dump, device):
    """The reference's keyword arguments: tensors on DEVICE, scalars as Python numbers."""
    kwargs = {}
    for name, spec in definition["inputs"].items():
        t = dump.tensor("in." + name)
        if spec.get("shape") is None:
            exact = dump.meta.get("scalar." + name)
            if t.dtype.is_floating_point:
                kwargs[name] = float(exact) if exact is not None else float(t.float().item())
            elif t.dtype == torch.bool:
                kwargs[name] = bool(t.item())
            else:
                kwargs[name] = int(exact) if exact is not None else int(t.item())
        else:
            kwargs[name] = t.to(device)
    return kwargs


def reference_outputs(definition, result):
    """The reference's return value mapped to the definition's outputs, in order."""
    names = list(definition["outputs"])
    if isinstance(result, dict):
        return {n: result[n] for n in names}
    if isinstance(result, torch.Tensor):
        result = (result,)
    result = tuple(result)
    if len(result) != len(names):
        raise DumpError(f"the reference returned {len(result)} value(s) for {len(names)} output(s) {names}")
    return dict(zip(names, result))


class Table:
    """Rows per workload and output (the column names before the first), then the tally."""

    def __init__(self):
        self.passed = self.failed = 0
        self.started = False

    def _start(self):
        if not self.started:
            print(f"{'workload':<10}{'output':<16}{'numel':>10}{'max_abs':>11}{'max_rel':>11}{'matched':>10}  result")
            self.started = True

    def row(self, uuid, output, numel, max_abs, max_rel, matched, ok, note=""):
        self._start()
        print(f"{uuid[:8]:<10}{output:<16}{numel:>10}{max_abs:>11.3e}{max_rel:>11.3e}{matched:>10.6f}  "
              f"{'PASS' if ok else 'FAIL'}{'  ' + note if note else ''}")

    def error(self, uuid, what, message):
        self._start()
        print(f"{uuid[:8]:<10}{what:<16}{'':>10}{'':>11}{'':>11}{'':>10}  FAIL  {message}")

    def inputs(self, uuid, numel, differ):
        self._start()
        note = "bit-identical" if not differ else "differ: " + ", ".join(differ)
        print(f"{uuid[:8]:<10}{'inputs':<16}{numel:>10}{'':>11}{'':>11}{'':>10}  {'FAIL' if differ else 'PASS'}  {note}")

    def workload(self, ok):
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def dumps_in(folder):
    paths = sorted(glob.glob(os.path.join(folder, "*.safetensors")))
    if not paths:
        raise DumpError(f"{folder}: no .safetensors dumps")
    return paths


def check_meta(dump, definition):
    got = dump.meta.get("definition")
    if got != definition["name"]:
        raise DumpError(f"{dump.path}: a dump of '{got}', not of '{definition['name']}'")


def run_against_pytorch(definition, folder, args, table):
    run = load_reference(definition)
    device = torch.device(args.torch_device)
    first = True
    for path in dumps_in(folder):
        uuid = os.path.basename(path)[:-len(".safetensors")]
        try:
            dump = Dump(path)
            check_meta(dump, definition)
            if first:
                print(f"# kwb reference on {dump.meta.get('device')} ({dump.meta.get('hardware')}) vs PyTorch "
                      f"reference on {device}; seed {dump.meta.get('seed')}, trial {dump.meta.get('trial')}")
                first = False
            with torch.no_grad():
                outs = reference_outputs(definition, run(**reference_inputs(definition, dump, device)))
            if device.type == "cuda":
                torch.cuda.synchronize()
        except Exception as e:  # a reference that raises fails its workload, with the reason
            table.error(uuid, "reference", f"{type(e).__name__}: {e}")
            if args.verbose:
                traceback.print_exc()
            table.workload(False)
            continue
        all_ok = True
        for name, want in outs.items():
            try:
                got = dump.tensor("out." + name)
            except DumpError as e:
                table.error(uuid, name, str(e))
                all_ok = False
                continue
            ok, mabs, mrel, matched, note = compare_output(definition, dump, name, got, want, args)
            table.row(uuid, name, got.numel(), mabs, mrel, matched, ok, note)
            all_ok &= ok
        table.workload(all_ok)


def run_cross(definition, a_dir, b_dir, args, table):
    b_paths = {os.path.basename(p): p for p in dumps_in(b_dir)}
    for a_path in dumps_in(a_dir):
        base = os.path.basename(a_path)
        uuid = base[:-len(".safetensors")]
        if base not in b_paths:
            table.error(uuid, "dump", f"not in {b_dir}")
            table.workload(False)
            continue
        try:
            a, b = Dump(a_path), Dump(b_paths.pop(base))
            check_meta(a, definition)
            check_meta(b, definition)
        except DumpError as e:
            table.error(uuid, "dump", str(e))
            table.workload(False)
            continue
        if table.passed + table.failed == 0:
            print(f"# kwb reference on {a.meta.get('device')} ({a.meta.get('hardware')}) vs on "
                  f"{b.meta.get('device')} ({b.meta.get('hardware')}); seed {a.meta.get('seed')}, "
                  f"trial {a.meta.get('trial')}")
        names = ["in." + n for n in definition["inputs"]]
        differ = [n[3:] for n in names if a.entries.get(n) != b.entries.get(n)]  # dtype, shape and bytes
        table.inputs(uuid, sum(a.tensor(n).numel() for n in names if n in a.entries), differ)
        all_ok = not differ
        for name in definition["outputs"]:
            want, got = a.tensor("out." + name), b.tensor("out." + name)
            ok, mabs, mrel, matched, note = compare_output(definition, a, name, got, want, args)
            table.row(uuid, name, got.numel(), mabs, mrel, matched, ok, note)
            all_ok &= ok
        table.workload(all_ok)
    for base in sorted(b_paths):
        table.error(base[:-len(".safetensors")], "dump", f"not in {a_dir}")
        table.workload(False)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--definition", required=True, help="the definition JSON file")
    p.add_argument("folder", nargs="?", help="a folder of dumps")
    p.add_argument("--cross", nargs=2, metavar=("A", "B"), help="two folders of dumps to compare")
    p.add_argument("--atol", type=float, help="default: the definition's kwb.check, else 1e-2")
    p.add_argument("--rtol", type=float, help="default: the definition's kwb.check, else 1e-2")
    p.add_argument("--matched-ratio", type=float, help="default: the definition's kwb.check, else 1")
    p.add_argument("--rule", choices=("fib", "allclose"), default="fib")
    p.add_argument("--torch-device", default="cuda", help="where PyTorch runs the reference (default cuda)")
    p.add_argument("--verbose", action="store_true", help="tracebacks of failing references")
    args = p.parse_args()
    if bool(args.folder) == bool(args.cross):
        p.error("give a folder of dumps, or --cross A B")
    if not args.cross and args.torch_device.startswith("cuda") and not torch.cuda.is_available():
        print(f"SKIP: PyTorch {torch.__version__} sees no CUDA device (--torch-device cpu runs it on the cpu)",
              file=sys.stderr)
        return SKIP
    torch.backends.cuda.matmul.allow_tf32 = False  # the reference's float32 is float32
    torch.backends.cudnn.allow_tf32 = False
    try:
        with open(args.definition) as f:
            definition = json.load(f)
        check = definition.get("kwb", {}).get("check", {})  # the definition's own settings, as kwb eval
        for name, key, default in (("atol", "atol", 1e-2), ("rtol", "rtol", 1e-2),
                                   ("matched_ratio", "matched_ratio", 1.0)):
            if getattr(args, name) is None:
                setattr(args, name, float(check.get(key, default)))
        print(f"# {definition['name']}: rule {args.rule}, atol {args.atol:g}, rtol {args.rtol:g}, "
              f"matched ratio {args.matched_ratio:g}; torch {torch.__version__}")
        table = Table()
        if args.cross:
            run_cross(definition, args.cross[0], args.cross[1], args, table)
        else:
            run_against_pytorch(definition, args.folder, args, table)
    except (OSError, ValueError, KeyError, DumpError) as e:
        print(f"conformance: {e}", file=sys.stderr)
        return 2
    print(f"{table.passed} passed, {table.failed} failed")
    return 0 if table.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
