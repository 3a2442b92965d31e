"""Every relative link in README.md and docs/*.md resolves: the file exists,
and a #anchor names a heading of the page it points at (GitHub's slugs:
lower case, punctuation dropped, spaces to hyphens, -1, -2 ... on repeats)."""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = [os.path.join(ROOT, "README.md"), *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target); the target ends at the first space or ')'
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
EXTERNAL = ("http://", "https://", "mailto:")


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters, digits and _
    return text.replace(" ", "-")


def anchors(text):
    """The anchors of a page's headings, repeats numbered as GitHub does."""
    seen, out = {}, set()
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(text):
    """(line, target) of every relative link outside code."""
    out = []
    for i, line in enumerate(FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text).split("\n"), 1):
        for target in LINK.findall(CODE.sub("", line)):
            if not target.startswith(EXTERNAL):
                out.append((i, target))
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def broken(page):
    """['page:line: target (why)'] for the page's links that do not resolve."""
    text, bad = read(page), []
    for line, target in links(text):
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = f"{os.path.relpath(page, ROOT)}:{line}: {target}"
        if not os.path.exists(dest):
            bad.append(f"{where} (no such file)")
        elif anchor and (not dest.endswith(".md") or anchor not in anchors(read(dest))):
            bad.append(f"{where} (no such heading)")
    return bad


def test_every_relative_link_and_anchor_resolves():
    bad = [b for page in PAGES for b in broken(page)]
    assert bad == [], "\n".join(bad)


def test_slugs_are_githubs():
    assert slug("Off the default sweep (issues 29, 39)") == "off-the-default-sweep-issues-29-39"
    assert slug("`make ab`: A/B on one GPU") == "make-ab-ab-on-one-gpu"
    assert slug("What a run does, per point") == "what-a-run-does-per-point"
    assert anchors("# A\n## A\n```\n# B\n```\n") == {"a", "a-1"}


def test_a_broken_link_or_anchor_is_found(tmp_path):
    (tmp_path / "b.md").write_text("# Here\n")
    page = tmp_path / "a.md"
    page.write_text("[ok](b.md#here) [gone](c.md) [anchor](b.md#there) `[code](x.md)` [self](#title)\n"
                    "# Title\n")
    assert [b.split(": ", 1)[1] for b in broken(str(page))] == [
        "c.md (no such file)", "b.md#there (no such heading)"]
