"""Every proof is cited, and every citation exists.

A proof (an entry directly under results/<gpu>/proofs/) that no page, report,
script or test names is weight nobody reads: git history keeps what is
removed. A path under proofs/ that the README or docs/ name must be there.
"""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELF = os.path.abspath(__file__)

PROSE = ["README.md", "docs/*.md"]
# Also the code whose comments give a proof as evidence (kernels/gemm/gemm_tiles.h, gemm_schedule_math.h),
# and another proof's README that lists it as part of its run.
CITERS = PROSE + ["results/*/REPORT.md", "scripts/*", "tests/*",
                  "kernels/*", "kernels/*/*", "harness/*", "bench/*"]
PROOF_READMES = "results/*/proofs/*/README.md"

# A path under proofs/: results/<gpu>/proofs/..., <gpu>/proofs/... or
# proofs/...; <gpu> may be the placeholder itself.
MENTION = re.compile(r"(?:results/)?(?:([\w.<>-]+)/)?proofs/([\w.<>*{},/-]+)")
PLACEHOLDER = re.compile(r"[<>*{}]")


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _files(patterns, skip=()):
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            if os.path.isfile(path) and os.path.abspath(path) not in skip:
                yield path


def gpus():
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(ROOT, "results", "*", "proofs")))


def proof_entries():
    """(gpu, name) of every entry directly under results/<gpu>/proofs/."""
    return [(gpu, name) for gpu in gpus()
            for name in sorted(os.listdir(os.path.join(ROOT, "results", gpu, "proofs")))]


def cites(text, name):
    """The entry's name as a whole word of a path or of prose: not the stem
    of a longer name (round_c7054f5 is not cited by round_c7054f5.log)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text) is not None


def test_every_proof_is_cited():
    texts = [_read(p) for p in _files(CITERS, skip={SELF})]
    readmes = {p: _read(p) for p in _files([PROOF_READMES])}

    def cited(gpu, name):
        own = os.path.join(ROOT, "results", gpu, "proofs", name) + os.sep
        return (any(cites(t, name) for t in texts)
                or any(cites(t, name) for p, t in readmes.items() if not p.startswith(own)))

    uncited = [f"results/{gpu}/proofs/{name}" for gpu, name in proof_entries() if not cited(gpu, name)]
    assert uncited == [], "cite each (README.md, docs/, a REPORT.md, scripts/, tests/, code, another proof), or git rm it"


def mentions(text):
    """(gpu or None, concrete path below proofs/) of each proofs/ path named in
    text: the path up to its first placeholder part (round_*, <commit>,
    {1,2}); a path whose entry itself is a placeholder cites nothing."""
    for gpu, rest in MENTION.findall(text):
        parts = []
        for part in rest.rstrip(".,").split("/"):
            if not part or PLACEHOLDER.search(part):
                break
            parts.append(part)
        if parts:
            yield (None if not gpu or PLACEHOLDER.search(gpu) else gpu), "/".join(parts)


def test_every_cited_proof_exists():
    known = gpus()
    missing = []
    for path in _files(PROSE):
        for gpu, rest in mentions(_read(path)):
            where = [gpu] if gpu in known else known  # results/<gpu>/ or none: any GPU's
            if not any(os.path.exists(os.path.join(ROOT, "results", g, "proofs", rest)) for g in where):
                missing.append((os.path.relpath(path, ROOT), f"{gpu or '*'}/proofs/{rest}"))
    assert missing == [], "point at a path that exists, or name the commit that removed it"


def test_the_checks_read_real_names():
    # The parsers on the forms the pages use, and a real entry.
    text = ("results/h200/proofs/multigpu/, proofs/round_a973f88/rounds.txt. "
            "results/<gpu>/proofs/offsweep_<commit>/gemm.csv, proofs/tile64_4ffa7c2/stages{6,8}.csv, "
            "results/<gpu>/proofs/ab_*/<machine>/x.csv")
    assert list(mentions(text)) == [("h200", "multigpu"), (None, "round_a973f88/rounds.txt"),
                                    (None, "tile64_4ffa7c2")]
    assert cites("see round_c7054f5.log", "round_c7054f5.log")
    assert not cites("see round_c7054f5.log", "round_c7054f5")
    assert cites("proofs/round_c7054f5/plain.txt.", "round_c7054f5")
    assert ("h200", "multigpu") in proof_entries()
