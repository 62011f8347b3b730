"""A FlashInfer-Bench Python solution (destination-passing) that calls a kwb solution's built
library: the arguments become kwb_arg structures (include/kwb/kernel.h) in definition order and
kwb_entry runs on PyTorch's current stream. KWB_FIB_SO names the library, KWB_FIB_DEF the
definition's JSON (for the argument names and scalar dtypes). Used by bench/fib/benchmark.py so
that FlashInfer-Bench's Benchmark times the very kernel kwb times."""
import ctypes
import json
import os

import torch

KWB_MAX_RANK = 8
DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2, torch.float8_e4m3fn: 3, torch.float8_e5m2: 4,
          torch.int64: 5, torch.int32: 6, torch.int16: 7, torch.int8: 8, torch.bool: 9}
NAMED = {"float32": 0, "float16": 1, "bfloat16": 2, "float8_e4m3fn": 3, "float8_e5m2": 4, "int64": 5, "int32": 6,
         "int16": 7, "int8": 8, "bool": 9}


class KwbArg(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("shape", ctypes.c_int64 * KWB_MAX_RANK), ("data", ctypes.c_void_p), ("f", ctypes.c_double),
                ("i", ctypes.c_int64)]


_lib = ctypes.CDLL(os.environ["KWB_FIB_SO"])
_lib.kwb_entry.argtypes = [ctypes.POINTER(KwbArg), ctypes.c_int, ctypes.c_void_p]
_lib.kwb_entry.restype = ctypes.c_int
with open(os.environ["KWB_FIB_DEF"]) as f:
    _def = json.load(f)
_specs = list(_def["inputs"].items()) + list(_def["outputs"].items())
_names = [n.encode() for n, _ in _specs]


def run(*args):
    arr = (KwbArg * len(args))()
    for j, x in enumerate(args):
        a = arr[j]
        a.name = _names[j]
        if isinstance(x, torch.Tensor) and x.dim() > 0:
            a.dtype, a.rank, a.data = DTYPES[x.dtype], x.dim(), x.data_ptr()
            for d in range(x.dim()):
                a.shape[d] = x.shape[d]
        else:
            v = x.item() if isinstance(x, torch.Tensor) else x
            a.dtype, a.rank, a.f, a.i = NAMED.get(_specs[j][1].get("dtype"), 0), -1, float(v), int(v)
    rc = _lib.kwb_entry(arr, len(args), ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    if rc != 0:
        raise RuntimeError(f"kwb_entry returned {rc}")
