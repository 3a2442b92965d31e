"""syncbench's script library: the modules the commands in scripts/ share.

    sbcsv       reading syncbench CSVs by column name
    sbcompare   comparing runs point by point (compare.py, the gate)
    sbvariants  the variant tables as the binary lists them
    sbplot      what every plot shares, and the small PNGs it writes
    sbstalls    Nsight Compute's warp states as syncbench reads them

A command puts scripts/ and scripts/lib/ on sys.path and imports a module
by its name (import sbcsv). The package gives the same module objects:
`from lib import sbcsv` (from scripts/) is the module `import sbcsv` gives,
never a second copy with state of its own.
"""
import importlib
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (_HERE, os.path.dirname(_HERE)):  # the modules by name; sbdeps beside the commands
    if _path not in sys.path:
        sys.path.append(_path)

__all__ = ["sbcompare", "sbcsv", "sbplot", "sbstalls", "sbvariants"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(name)
    raise AttributeError(f"module 'lib' has no attribute '{name}'")
