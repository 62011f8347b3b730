"""Import-only placeholders for packages flashinfer-bench imports but whose code the trace
models and `report summary` never run (torch and its kin pull gigabytes of CUDA libraries).
Any attribute is an inert class; calling into one raises."""
import importlib.abc, importlib.machinery, sys, types

NAMES = {"torch", "tvm_ffi", "flashinfer", "triton", "safetensors", "cupti"}

class _Inert(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _make(name)
    def __call__(cls, *a, **k):
        raise RuntimeError("placeholder %s called: this test must not reach it" % cls.__name__)
    def __getitem__(cls, item):
        return cls
    def __or__(cls, other):
        return cls
    __ror__ = __or__

def _make(name):
    return _Inert(name, (), {})

class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _make(name)

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in NAMES:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None
    def create_module(self, spec):
        m = _Module(spec.name)
        m.__path__ = []
        return m
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Finder())
