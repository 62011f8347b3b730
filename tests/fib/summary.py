"""Runs flashinfer-bench's CLI `report summary --local DIR` and prints what it logs (at INFO:
the CLI's `report` parser has no --log-level, and its summary is an INFO line)."""
import argparse
import os
import sys

if os.environ.get("KWB_FIB_PLACEHOLDERS"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import placeholder  # noqa: F401

import flashinfer_bench.cli.main as fib_cli

configure = fib_cli.cli_config_logging
fib_cli.cli_config_logging = lambda args: configure(argparse.Namespace(log_level="INFO"))
sys.argv = ["flashinfer-bench", "report", "summary", "--local", sys.argv[1]]
fib_cli.cli()
