"""The README is a front page whose prose names no commit, and the docs
pages are reference-sized.

A commit in prose is a figure's date stamp that nothing updates: the
generated blocks (scripts/answers.py, checked by make test) name the commits
of the committed results, and a proof's directory name (offsweep_62fd08f)
names its own. Outside those, the README points at where a number lives.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GENERATED = re.compile(r"<!-- (\w+):begin -->.*?<!-- \1:end -->", re.S)
# 7-40 hex digits with at least one digit and one letter a-f, as a word of
# its own: not part of a name (offsweep_62fd08f, 0x1f2e3d4c), nor a GPU's UUID
# fragment (GPU-4529d816).
COMMIT = re.compile(r"(?<!\w)(?<!GPU-)(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?!\w)")


def prose(text):
    """The text outside the generated blocks."""
    return GENERATED.sub("", text)


def commits(text):
    return COMMIT.findall(text)


def test_the_readme_prose_names_no_commit():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    found = [(text[:text.index(c)].count("\n") + 1, c) for c in commits(prose(text))]
    assert found == [], "point at the committed file or the generated block that holds it"


def test_the_check_tells_commits_from_other_hex():
    assert commits("at commit 361a70c, and (62fd08f) or `a973f88`: 10:35") == ["361a70c", "62fd08f", "a973f88"]
    assert commits("base..7aaf0deb4275 and A/B -5347b92") == ["7aaf0deb4275", "5347b92"]
    assert commits("proofs/offsweep_62fd08f/ GPU-4529d816 0x1f2e3d4c deadbeef 1234567 "
                   "sm_90a cafe12 abc1234x") == []


def test_the_generated_blocks_are_left_out_and_only_they():
    text = "a 361a70c\n<!-- answers:begin -->\ncommit 62fd08f\n<!-- answers:end -->\nb"
    assert commits(prose(text)) == ["361a70c"]
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(ROOT, "results", "h100-80gb-hbm3", "latest.csv"), encoding="utf-8") as f:
        f.readline()
        latest = f.readline().split(",")
    commit = next(c for c in latest if len(c) == 12 and all(ch in "0123456789abcdef" for ch in c))[:7]
    # the generated block names the committed pair's commit; the prose around it does not
    assert commit in readme and commit not in prose(readme) and "<!-- answers:begin -->" not in prose(readme)


def test_every_docs_page_but_history_is_reference_sized():
    """docs/ pages are reference, each at most 500 lines of prose (the
    generated tables aside); how a finding was reached goes to
    docs/history.md (issue 37)."""
    docs = os.path.join(ROOT, "docs")
    long = {}
    for name in sorted(os.listdir(docs)):
        if name.endswith(".md") and name != "history.md":
            with open(os.path.join(docs, name), encoding="utf-8") as f:
                n = prose(f.read()).count("\n")
            if n > 500:
                long[name] = n
    assert long == {}


def test_the_readme_is_a_front_page():
    """Its first screen says what syncbench answers and shows the install,
    `make bench`, `make test` and where the answers are; it is well under
    200 lines, and its answers block at most 80."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    first = "\n".join(text.splitlines()[:40])
    for words in ("CUDA Toolkit", "libbenchmark-dev", "make bench", "make test",
                  "(#the-answers)", "git clone --depth 1"):
        assert words in first, words
    assert text.count("\n") < 200
    block = GENERATED.search(text)
    assert block and block.group(1) == "answers" and block.group(0).count("\n") <= 81
