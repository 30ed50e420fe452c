"""Build riskcore/boards/maps/classic.json from reference data files.

The reference files are the facts (gathered from public sources:
classic-map.txt and classic-cards.txt in one folder); they are not part of
this repository, and the map built from them is committed, so nobody needs
this script to use or change the project. This script only changes their
format. With those files at hand, run it again if they change:

    .venv/bin/python scripts/build_maps.py REFERENCE_FOLDER

The Middle-earth map (``middle_earth.json``) is kept by hand: its bridges,
harbour links and card sides come from the rule books, beyond what a
reference file lists, so no script rewrites it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "riskcore" / "boards" / "maps"
SYMBOLS = {"I": "infantry", "C": "cavalry", "A": "artillery"}
CLASSIC_GROUPS = {
    "NA": ("north_america", "North America", 5),
    "SA": ("south_america", "South America", 2),
    "EU": ("europe", "Europe", 5),
    "AF": ("africa", "Africa", 3),
    "AS": ("asia", "Asia", 7),
    "AU": ("australia", "Australia", 2),
}
# Borders drawn across water on the printed board; the kind is informative
# only in the classic game (every border can be crossed).
CLASSIC_SEA_LANES = {
    frozenset(p)
    for p in [
        ("Alaska", "Kamchatka"),
        ("Greenland", "Iceland"),
        ("Greenland", "Northwest Territory"),
        ("Greenland", "Ontario"),
        ("Greenland", "Quebec"),
        ("Iceland", "Great Britain"),
        ("Iceland", "Scandinavia"),
        ("Great Britain", "Scandinavia"),
        ("Great Britain", "Western Europe"),
        ("Great Britain", "Northern Europe"),
        ("Brazil", "North Africa"),
        ("Southern Europe", "North Africa"),
        ("Southern Europe", "Egypt"),
        ("East Africa", "Madagascar"),
        ("South Africa", "Madagascar"),
        ("Siam", "Indonesia"),
        ("Indonesia", "New Guinea"),
        ("Indonesia", "Western Australia"),
        ("New Guinea", "Western Australia"),
        ("New Guinea", "Eastern Australia"),
        ("Kamchatka", "Japan"),
        ("Mongolia", "Japan"),
    ]
}


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [[c.strip() for c in ln.split("|")] for ln in lines if ln and not ln.startswith("#")]


def borders(neighbours: dict[str, list[str]], kind_of) -> list[list[str]]:
    pairs = set()
    for a, ns in neighbours.items():
        for b in ns:
            if a not in neighbours.get(b, []):
                raise SystemExit(f"border {a} - {b} is not symmetric in the reference")
            pairs.add(tuple(sorted((slug(a), slug(b)))))
    names = {slug(n): n for n in neighbours}
    return [[a, b, kind_of(names[a], names[b])] for a, b in sorted(pairs)]


def classic(ref: Path) -> dict:
    terr = rows(ref / "classic-map.txt")
    symbols = {name: SYMBOLS[s] for name, s in rows(ref / "classic-cards.txt")}
    neighbours = {name: ns.split(",") for name, _, ns in terr}
    groups = []
    for code, (gid, gname, bonus) in CLASSIC_GROUPS.items():
        members = [slug(name) for name, g, _ in terr if g == code]
        groups.append({"id": gid, "name": gname, "bonus": bonus, "territories": members})
    cards = [{"territory": slug(name), "symbol": symbols[name]} for name, _, _ in terr]
    cards += [{"territory": None, "symbol": "wild"}] * 2
    return {
        "format": 1,
        "name": "classic",
        "title": "Classic world map (42 territories, 6 continents)",
        "territories": [
            {"id": slug(name), "name": name, "group": CLASSIC_GROUPS[g][0]} for name, g, _ in terr
        ],
        "groups": groups,
        "borders": borders(
            neighbours, lambda a, b: "sea" if frozenset((a, b)) in CLASSIC_SEA_LANES else "land"
        ),
        "cards": [{"id": i, **c} for i, c in enumerate(cards)],
    }


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/build_maps.py REFERENCE_FOLDER (where classic-map.txt is)")
    board = classic(Path(sys.argv[1]))
    text = json.dumps(board, indent=1, ensure_ascii=False) + "\n"
    (OUT / f"{board['name']}.json").write_text(text, encoding="utf-8")
    print(f"wrote {board['name']}: {len(board['territories'])} territories")


if __name__ == "__main__":
    main()
