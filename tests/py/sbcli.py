"""Running build/syncbench from the pytest suites: one place for the
binary's path and for hiding the GPU, so the no-device behaviour is what
gets tested on every host."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "syncbench")


def require_binary():
    # Not a skip: `make test` builds the binary first, so its absence is a bug.
    if not os.access(BIN, os.X_OK):
        pytest.fail(f"{BIN} is missing or not executable: run `make` (or `make test`) first")
    return BIN


def run(*args, cwd, env_extra=None):
    env = dict(os.environ)
    env["CUDA_VISIBLE_DEVICES"] = ""  # no GPU, even on a GPU host
    env.update(env_extra or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)
