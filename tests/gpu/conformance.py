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
--matched-ratio (default 1). Prints a table and `N passed, N failed` (workloads); exit status 0
when all passed, 1 otherwise, 2 for bad input, 77 when PyTorch (or its CUDA device) is missing.
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
        body = data[8 + n:]
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
            ok, mabs, mrel, matched, note = compare(got, want, args)
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
            ok, mabs, mrel, matched, note = compare(got, want, args)
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
    p.add_argument("--atol", type=float, default=1e-2)
    p.add_argument("--rtol", type=float, default=1e-2)
    p.add_argument("--matched-ratio", type=float, default=1.0)
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
