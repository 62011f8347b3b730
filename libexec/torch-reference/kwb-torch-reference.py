#!/usr/bin/env python3
"""kwb-torch-reference DEFINITION_JSON DEVICE: runs a FlashInfer-Bench definition's PyTorch
`reference` for kwb's runner (the torch bridge, bridge.c, starts it with its socket on stdin and
stdout). The one place kwb runs Python; kwb works without it. The protocol is in bridge.c."""
import json
import os
import sys

DTYPES = ["float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
          "int64", "int32", "int16", "int8", "bool"]


def say(out, text):
    out.write(text.encode() + b"\n")
    out.flush()


def load(def_path):
    """The definition, its reference's run(), and torch."""
    import torch  # noqa: F401  (the error says so when it is missing)
    with open(def_path) as f:
        d = json.load(f)
    if not d.get("reference"):
        raise ValueError("%s has no \"reference\" source" % def_path)
    ns = {"__name__": "kwb_reference_" + d["name"]}
    exec(compile(d["reference"], def_path + ":reference", "exec"), ns)
    if not callable(ns.get("run")):
        raise ValueError("%s: the reference defines no run()" % def_path)
    return d, ns["run"], torch


def tensor_bytes(t, torch):
    t = t.detach().contiguous().cpu().reshape(-1)
    if t.numel() == 0:
        return b""
    raw = t.view(torch.uint8)
    try:
        return raw.numpy().tobytes()
    except Exception:  # torch without numpy
        return bytes(raw.tolist())


def call(req, inp, d, run, torch, device):
    types = {name: getattr(torch, name) for name in DTYPES}
    args = []
    for a in req["inputs"]:
        if a["shape"] is None:
            v = a["value"]
            args.append(bool(int(v)) if a["dtype"] == "bool" else
                        int(v) if a["dtype"].startswith("int") else float(v))
            continue
        dt = types[a["dtype"]]
        n = dt.itemsize
        for s in a["shape"]:
            n *= s
        buf = inp.read(n)
        if len(buf) != n:
            raise EOFError("input %s: short read" % a["name"])
        t = (torch.frombuffer(bytearray(buf), dtype=torch.uint8).view(dt) if n else
             torch.empty(0, dtype=dt)).reshape(a["shape"])
        args.append(t.to(device))
    with torch.no_grad():
        res = run(*args)
    if not isinstance(res, (tuple, list)):
        res = (res,)
    outs = req["outputs"]
    if len(res) != len(outs):
        raise ValueError("run() returned %d value(s), the definition has %d output(s)" % (len(res), len(outs)))
    blobs = []
    for o, t in zip(outs, res):
        t = torch.as_tensor(t)
        if list(t.shape) != o["shape"]:
            raise ValueError("output %s: shape %s, the definition's is %s" % (o["name"], list(t.shape), o["shape"]))
        blobs.append(tensor_bytes(t.to(types[o["dtype"]]), torch))
    return blobs


def main():
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the reference prints goes to the log, not into the protocol
    def_path, device = sys.argv[1], sys.argv[2]
    try:
        d, run, torch = load(def_path)
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
    except Exception as e:
        say(out, "error python3 cannot run the reference of %s: %s: %s" % (def_path, type(e).__name__, e))
        return 1
    say(out, "ready %d %d" % (len(d["inputs"]), len(d["outputs"])))
    while True:
        line = inp.readline()
        if not line:
            return 0
        try:
            blobs = call(json.loads(line), inp, d, run, torch, device)
        except EOFError:
            return 0
        except Exception as e:
            msg = "%s: %s" % (type(e).__name__, e)
            say(out, "error the reference raised " + msg.replace("\n", " ")[:900])
            continue
        out.write(b"ok\n")
        for b in blobs:
            out.write(b)
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
