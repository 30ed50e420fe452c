"""The line that adds an extra to this installation of riskcore.

No package index has riskcore, so a hint saying ``pip install 'riskcore[server]'``
would send a user to a "No matching distribution" error. pip records where a
package came from when it was not an index (``direct_url.json``, PEP 610): a
wheel file, a checkout, an editable checkout. The hint names that same source
with the extra, which is the line that works. Standard library only: the
``risk`` script imports this before it knows click is there.
"""

from __future__ import annotations

import json
from importlib import metadata
from urllib.parse import urlsplit
from urllib.request import url2pathname

__all__ = ["install_line"]


def install_line(extra: str) -> str:
    """``pip install …`` with ``extra``, from wherever this riskcore was installed."""
    # A checkout's riskcore.egg-info (setuptools' build leftovers) may come
    # first on sys.path; the installed dist-info is the one with the record.
    found = (d.read_text("direct_url.json") for d in metadata.distributions(name="riskcore"))
    recorded = next((text for text in found if text), None)
    if recorded is None:  # from an index (pip writes no direct_url.json then), or never installed
        return f"pip install 'riskcore[{extra}]'"
    source = json.loads(recorded)
    url = source["url"]
    parts = urlsplit(url)
    if parts.scheme != "file":
        return f"pip install 'riskcore[{extra}] @ {url}'"
    path = url2pathname(parts.path)
    editable = "-e " if source.get("dir_info", {}).get("editable") else ""
    return f"pip install {editable}'{path}[{extra}]'"
