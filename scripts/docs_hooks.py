"""MkDocs hooks for the documentation site (mkdocs.yml): pages from outside docs/.

The repository's front pages live at its root, where a reader of the
checkout looks for them: README.md becomes the site's home page,
CHANGELOG.md its changelog, and openapi.yaml the file the API reference
renders. Their links, and the docs' links to source files outside docs/,
are written for the checkout; here they are pointed at the site's pages (or
its copy of openapi.yaml), or,
for a source file the site does not hold, turned into the file's name in
code. A link to nothing in the repository is left alone, so the strict build
still fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
# Site page (in docs/) -> the repository file it is made from.
FROM_THE_ROOT = {"index.md": "README.md", "changelog.md": "CHANGELOG.md"}
COPIED = {"openapi.yaml": "openapi.yaml"}
# Inline links and images: [text](target) and ![alt](target).
LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", flags=re.M | re.S)


def on_files(files: Files, config: Any) -> Files:
    """Add the root's pages and the API document as generated files, and put a page
    that mkdocs.yml's nav does not name yet under "More", so none is left unlinked."""
    for page, source in {**FROM_THE_ROOT, **COPIED}.items():
        files.append(
            File.generated(config, page, content=(ROOT / source).read_text(encoding="utf-8"))
        )
    named = set(_pages(config["nav"] or []))
    more = sorted(f.src_uri for f in files.documentation_pages() if f.src_uri not in named)
    if more:
        config["nav"].append({"More": more})
    return files


def _pages(nav: list[Any]) -> list[str]:
    found: list[str] = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found += _pages(value) if isinstance(value, list) else [str(value)]
    return found


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Links written for the checkout, pointed at the site."""
    source = FROM_THE_ROOT.get(page.file.src_uri, f"docs/{page.file.src_uri}")
    page_dir = posixpath.dirname(page.file.src_uri)
    rewrite = _rewriter(posixpath.dirname(source), page_dir)
    # Fenced code is left as it is written.
    out, start = [], 0
    for fence in FENCE.finditer(markdown):
        out.append(LINK.sub(rewrite, markdown[start : fence.start()]))
        out.append(fence.group(0))
        start = fence.end()
    out.append(LINK.sub(rewrite, markdown[start:]))
    return "".join(out)


def _rewriter(source_dir: str, page_dir: str) -> Any:
    site_pages = {source: page for page, source in {**FROM_THE_ROOT, **COPIED}.items()}

    def rewrite(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        path, _, anchor = target.partition("#")
        if not path or ":" in path or path.startswith("/"):
            return match.group(0)  # an anchor on the page, a URL, or a server path
        in_repo = posixpath.normpath(posixpath.join(source_dir, path))
        if in_repo in site_pages:
            in_site = site_pages[in_repo]
        elif in_repo.startswith("docs/"):
            in_site = in_repo.removeprefix("docs/")
        elif (ROOT / in_repo).exists() and not bang:
            # A source file: its name, where the checkout's reader would follow it.
            return text if text.startswith("`") else f"{text} (`{in_repo}`)"
        else:
            return match.group(0)  # nothing there: the strict build reports it
        relative = posixpath.relpath(in_site, page_dir or ".")
        return f"{bang}[{text}]({relative}{'#' + anchor if anchor else ''})"

    return rewrite
