"""Checks that every relative link and #anchor in README.md and docs/**/*.md resolves.

    /usr/bin/python3 scripts/check_doc_links.py      # exit 1 on any broken link or anchor

A link to a page must name an existing file; its #anchor must be one of that page's headings,
as mkdocs (Python-Markdown's toc extension) makes their ids (for README.md, GitHub's ids are
accepted too). Links from docs/ must stay inside docs/ (mkdocs --strict refuses others; name
repository files as code spans instead). Links in code spans and fenced code are not links.
Files that another step of the build writes (PENDING) are reported, not failed, when missing.
"""
import glob
import os
import re
import sys
import unicodedata

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = os.path.join(ROOT, "docs")

# Written by other scripts of the build, possibly after this check runs.
PENDING = {"docs/images/cantilever.gif": "the render step of the set-up writes it"}

try:
    from markdown.extensions.toc import slugify as _slugify

    def site_slug(text):
        return _slugify(text, "-")
except ImportError:  # the same rule as Python-Markdown's
    def site_slug(text):
        value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        value = re.sub(r"[^\w\s-]", "", value).strip().lower()
        return re.sub(r"[-\s]+", "-", value)


def github_slug(text):
    value = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return value.replace(" ", "-")


def strip_fences(text):
    """The text with fenced code blocks blanked (line numbers kept)."""
    out, fence = [], None
    for line in text.splitlines():
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if fence:
            out.append("")
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        # Indented code blocks (four spaces after a blank line) hold no links either.
        out.append("" if re.match(r"^( {4}|\t)", line) and (not out or not out[-1].strip()
                                                            or out[-1] == "") else line)
    return out


def heading_text(raw):
    """A heading's text as rendered: no code-span backticks, emphasis or escapes."""
    text = re.sub(r"`([^`]*)`", r"\1", raw)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\\(.)", r"\1", text)
    text = re.sub(r"(\*\*|__|\*)", "", text)
    text = re.sub(r"&[a-z]+;|&#\d+;", "", text)
    return re.sub(r"<[^>]+>", "", text).strip()


def anchors(path, cache={}):
    """(site ids, GitHub ids) of a Markdown file's headings."""
    if path not in cache:
        site, gh = set(), set()
        seen_site, seen_gh = {}, {}
        for line in strip_fences(open(path).read()):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = heading_text(m.group(2))
            for slug, seen, ids, sep in ((site_slug(text), seen_site, site, "_"),
                                         (github_slug(text), seen_gh, gh, "-")):
                n = seen.get(slug, 0)
                ids.add(slug if n == 0 else f"{slug}{sep}{n}")
                seen[slug] = n + 1
        # Explicit ids: <a id="..."> or <span id="...">.
        for m in re.finditer(r"<(?:a|span)\s+(?:name|id)=\"([^\"]+)\"", open(path).read()):
            site.add(m.group(1))
            gh.add(m.group(1))
        cache[path] = (site, gh)
    return cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(path):
    for number, line in enumerate(strip_fences(open(path).read()), 1):
        line = re.sub(r"`[^`]*`", "", line)
        for m in LINK.finditer(line):
            yield number, m.group(1)


def main():
    files = [os.path.join(ROOT, "README.md")]
    files += sorted(glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True))
    errors, notes, count = [], [], 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        in_docs = path.startswith(DOCS + os.sep)
        for number, target in links(path):
            count += 1
            where = f"{rel}:{number}: {target}"
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            file_part, _, fragment = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            dest_rel = os.path.relpath(dest, ROOT)
            if in_docs and not (dest + os.sep).startswith(DOCS + os.sep):
                errors.append(f"{where}: leaves docs/ (mkdocs cannot build it; write the path "
                              f"as a code span)")
                continue
            if not os.path.exists(dest):
                if dest_rel in PENDING:
                    notes.append(f"{where}: missing for now ({PENDING[dest_rel]})")
                else:
                    errors.append(f"{where}: no such file {dest_rel}")
                continue
            if fragment:
                if not dest.endswith(".md"):
                    errors.append(f"{where}: an anchor into a file that is not a page")
                    continue
                site, gh = anchors(dest)
                ok = fragment in site or (not in_docs and fragment in gh)
                if not ok:
                    errors.append(f"{where}: no heading with id #{fragment} in {dest_rel}")
    for n in notes:
        print("note: " + n)
    for e in errors:
        print("error: " + e)
    print(f"{count} links in {len(files)} files: {len(errors)} broken")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
