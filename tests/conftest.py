import os
import sys

import pytest

# The scripts' library (scripts/lib/: sbcsv, sbcompare, sbvariants, sbplot,
# sbstalls) for every test module, as each command puts it on its own path.
# tests/py/ holds the helpers the tests share (sbcli, fake_syncbench).
_TESTS = os.path.dirname(os.path.abspath(__file__))
_SCRIPTS = os.path.join(os.path.dirname(_TESTS), "scripts")
for _p in (os.path.join(_SCRIPTS, "lib"), _SCRIPTS, os.path.join(_TESTS, "py")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import sbcli


@pytest.fixture(scope="module")
def syncbench():
    return sbcli.require_binary()
