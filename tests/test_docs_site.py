"""The documentation site builds in strict mode, whole and offline (`make docs`).

Built here so that every test run (and CI, through `make test`) fails on a
broken link, a missing page or an anchor that went away, as `make docs`
would. The site must not need the internet: no script, stylesheet or font
from another host.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
# Material for MkDocs prints a notice about MkDocs 2.0 on every build (CHANGELOG, issue 38).
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
ASSET = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["']([^"']+)["']""")


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", config, "-d", site],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )


def nav_pages(nav: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += nav_pages(value) if isinstance(value, list) else [str(value)]
    return pages


def test_the_site_builds_strict_with_every_page_and_nothing_from_another_host(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    result = build(ROOT / "mkdocs.yml", site)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    for page in nav_pages(config["nav"]):
        built = site / ("index.html" if page == "index.md" else page.removesuffix(".md"))
        assert built.exists(), page
    # The home page is the README, the changelog CHANGELOG.md, their links made the site's.
    home = (site / "index.html").read_text()
    assert "make run" in home and 'href="install/"' in home and 'href="docs/' not in home
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text()
    # The API reference: Swagger UI from the site's own files, on the site's copy of the spec.
    assert (site / "openapi.yaml").read_bytes() == (ROOT / "openapi.yaml").read_bytes()
    [frame] = (site / "reference").glob("swagger-*.html")
    assert "openapi.yaml" in frame.read_text()

    for page in site.rglob("*.html"):
        for url in ASSET.findall(page.read_text()):
            assert not re.match(r"(https?:)?//", url), f"{page.relative_to(site)} loads {url}"


def test_a_new_page_is_in_the_nav_and_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """A page the nav does not name yet goes under "More" (so none is unreachable);
    a link to a page or a source file that is not there fails the strict build."""
    docs = shutil.copytree(ROOT / "docs", tmp_path / "docs")
    config = tmp_path / "mkdocs.yml"
    hooks = ROOT / "scripts" / "docs_hooks.py"
    config.write_text(f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\nhooks: [{hooks}]\n")
    (docs / "new-page.md").write_text("# A new page\n\nSee [the API](api.md).\n")
    result = build(config, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    home = (tmp_path / "site" / "index.html").read_text()
    assert 'href="new-page/"' in home and "More" in home

    with (docs / "api.md").open("a") as page:
        page.write("\nSee [the gone page](gone.md) and [a gone module](../riskcore/gone.py).\n")
    result = build(config, tmp_path / "site")
    assert result.returncode == 1
    assert "'gone.md'" in result.stderr
    assert "riskcore/gone.py" in result.stderr
