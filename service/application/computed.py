"""Results that cost CPU, kept per game head (issue 36, item 1): where they are kept.

They are kept by ``service.store.computed`` (the one door to them); this name
stays for the modules that build them (``service.application.costly``).
"""

from __future__ import annotations

from service.store.computed import CHUNK, RUNNING_SECONDS, Computed, chunks

__all__ = ["CHUNK", "RUNNING_SECONDS", "Computed", "chunks"]
