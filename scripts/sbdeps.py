"""A missing third-party Python package (scipy, matplotlib, numpy, ...) is
unusable input, not a crash: importing this module makes any script that
dies of a ModuleNotFoundError for a package outside scripts/ print one
line naming the package and the install command, and exit 2, instead of a
traceback. sbcsv and sbplot import it, so every script that reads a CSV or
draws a plot has it; a script with its own third-party imports imports it
before them.

    python3 scripts/sbdeps.py --help    (this text; the module is imported)
"""
from __future__ import annotations

import os
import sys

EXIT_UNUSABLE = 2
INSTALL = "pip install -r requirements.txt (or: make venv)"
HERE = os.path.dirname(os.path.abspath(__file__))


def _ours(name):
    """True for a module of scripts/ or its library scripts/lib/ (a bug, not
    an install)."""
    top = name.split(".")[0]
    return any(os.path.exists(os.path.join(d, top + ".py")) for d in (HERE, os.path.join(HERE, "lib")))


def message(exc, prog=None):
    """The one line for a missing package, or None when exc is not one."""
    name = getattr(exc, "name", None)
    if not isinstance(exc, ModuleNotFoundError) or not name or _ours(name):
        return None
    prog = prog or os.path.basename(sys.argv[0] or "python")
    return (f"{prog}: the Python package '{name.split('.')[0]}' is missing; "
            f"install it with: {INSTALL}")


def _hook(kind, exc, tb, _previous=sys.excepthook):
    line = message(exc)
    if line is None:
        _previous(kind, exc, tb)
        return
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    # An uncaught exception always ends in status 1; the contract is 2.
    os._exit(EXIT_UNUSABLE)


if sys.excepthook is not _hook and getattr(sys.excepthook, "__name__", "") != "_hook":
    sys.excepthook = _hook


if __name__ == "__main__":
    print("usage: import sbdeps (scripts/sbdeps.py is a module of the scripts, not a command)\n")
    print(__doc__.strip())
    sys.exit(0)
