"""Boards as data (docs/rules.md, "The board", "The cards"; "The Middle-earth board").

The classic board is checked against a copy of the project's reference
transcription (``classic-map.txt`` and ``classic-cards.txt``, which are not in
this repository) kept here so a clean checkout can run it; when the shared
folder sits next to the checkout, the copy is checked for drift.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from riskcore.boards.board import WILD, Board, board_from_dict, board_names, load_board
from riskcore.errors import BoardError

SHARED = Path(__file__).resolve().parents[3] / "shared" / "reference"

# territory | continent | neighbours, as in the reference classic-map.txt.
CLASSIC_MAP = """\
Alaska|NA|Alberta,Kamchatka,Northwest Territory
Northwest Territory|NA|Alaska,Alberta,Greenland,Ontario
Greenland|NA|Iceland,Northwest Territory,Ontario,Quebec
Alberta|NA|Alaska,Northwest Territory,Ontario,Western United States
Ontario|NA|Alberta,Eastern United States,Greenland,Northwest Territory,Quebec,Western United States
Quebec|NA|Eastern United States,Greenland,Ontario
Western United States|NA|Alberta,Central America,Eastern United States,Ontario
Eastern United States|NA|Central America,Ontario,Quebec,Western United States
Central America|NA|Eastern United States,Venezuela,Western United States
Venezuela|SA|Brazil,Central America,Peru
Peru|SA|Argentina,Brazil,Venezuela
Brazil|SA|Argentina,North Africa,Peru,Venezuela
Argentina|SA|Brazil,Peru
Iceland|EU|Great Britain,Greenland,Scandinavia
Scandinavia|EU|Great Britain,Iceland,Northern Europe,Ukraine
Ukraine|EU|Afghanistan,Middle East,Northern Europe,Scandinavia,Southern Europe,Ural
Great Britain|EU|Iceland,Northern Europe,Scandinavia,Western Europe
Northern Europe|EU|Great Britain,Scandinavia,Southern Europe,Ukraine,Western Europe
Western Europe|EU|Great Britain,North Africa,Northern Europe,Southern Europe
Southern Europe|EU|Egypt,Middle East,North Africa,Northern Europe,Ukraine,Western Europe
North Africa|AF|Brazil,Congo,East Africa,Egypt,Southern Europe,Western Europe
Egypt|AF|East Africa,Middle East,North Africa,Southern Europe
East Africa|AF|Congo,Egypt,Madagascar,Middle East,North Africa,South Africa
Congo|AF|East Africa,North Africa,South Africa
South Africa|AF|Congo,East Africa,Madagascar
Madagascar|AF|East Africa,South Africa
Ural|AS|Afghanistan,China,Siberia,Ukraine
Siberia|AS|China,Irkutsk,Mongolia,Ural,Yakutsk
Yakutsk|AS|Irkutsk,Kamchatka,Siberia
Kamchatka|AS|Alaska,Irkutsk,Japan,Mongolia,Yakutsk
Irkutsk|AS|Kamchatka,Mongolia,Siberia,Yakutsk
Mongolia|AS|China,Irkutsk,Japan,Kamchatka,Siberia
Japan|AS|Kamchatka,Mongolia
Afghanistan|AS|China,India,Middle East,Ukraine,Ural
China|AS|Afghanistan,India,Mongolia,Siam,Siberia,Ural
Middle East|AS|Afghanistan,East Africa,Egypt,India,Southern Europe,Ukraine
India|AS|Afghanistan,China,Middle East,Siam
Siam|AS|China,India,Indonesia
Indonesia|AU|New Guinea,Siam,Western Australia
New Guinea|AU|Eastern Australia,Indonesia,Western Australia
Western Australia|AU|Eastern Australia,Indonesia,New Guinea
Eastern Australia|AU|New Guinea,Western Australia
"""

# territory | symbol (I, C, A), as in the reference classic-cards.txt.
CLASSIC_CARDS = """\
Alaska|I
Alberta|C
Central America|A
Eastern United States|A
Greenland|C
Northwest Territory|A
Ontario|C
Quebec|C
Western United States|A
Argentina|I
Brazil|A
Peru|I
Venezuela|I
Great Britain|A
Iceland|I
Northern Europe|A
Scandinavia|C
Southern Europe|A
Ukraine|C
Western Europe|A
Congo|I
East Africa|I
Egypt|I
Madagascar|C
North Africa|C
South Africa|A
Afghanistan|C
China|I
India|C
Irkutsk|C
Japan|A
Kamchatka|I
Middle East|I
Mongolia|I
Siam|I
Siberia|C
Ural|C
Yakutsk|C
Eastern Australia|A
Indonesia|A
New Guinea|I
Western Australia|A
"""

CONTINENTS = {
    "NA": "north_america",
    "SA": "south_america",
    "EU": "europe",
    "AF": "africa",
    "AS": "asia",
    "AU": "australia",
}
SYMBOLS = {"I": "infantry", "C": "cavalry", "A": "artillery"}


def ident(name: str) -> str:
    return name.lower().replace(" ", "_")


def rows(text: str) -> list[list[str]]:
    return [
        line.split("|") for line in text.splitlines() if line.strip() and not line.startswith("#")
    ]


@pytest.fixture(scope="module")
def classic() -> Board:
    return load_board("classic")


@pytest.fixture
def raw() -> dict[str, Any]:
    """The classic board file as data, to break in tests."""
    text = resources.files("riskcore.boards.maps").joinpath("classic.json").read_text("utf-8")
    return json.loads(text)


# The classic board ----------------------------------------------------------


def test_classic_board_has_42_territories_in_6_continents(classic: Board) -> None:
    """000_ed9208fe5525be2d.txt: "uppdelad i 6 kontinenter och 42 territorier ... Afrika
    brun 6 Asien grön 12 Australien grå 4 Europa blå 7 Nordamerika gul 9 Sydamerika
    orange 4"; bonuses from docs/rules.md, "The board" (printed on the board, not in the books)."""
    # rule: 000-board-42
    # rule: 001-board
    # rule: 003-board
    assert len(classic.territories) == 42
    sizes = {g.id: len(g.territories) for g in classic.groups}
    assert sizes == {
        "north_america": 9,
        "south_america": 4,
        "europe": 7,
        "africa": 6,
        "asia": 12,
        "australia": 4,
    }
    bonuses = {g.id: g.bonus for g in classic.groups}
    assert bonuses == {
        "north_america": 5,
        "south_america": 2,
        "europe": 5,
        "africa": 3,
        "asia": 7,
        "australia": 2,
    }


def test_every_territory_is_in_exactly_the_reference_continent(classic: Board) -> None:
    """003_281a902b564cb498.txt: "Het spelbord is een kaart van 6 continenten verdeeld in
    42 gebieden"; which continent each is in, from reference/classic-map.txt."""
    # rule: 000-continent-sizes
    # rule: 001-continent-size
    expected = {ident(name): CONTINENTS[code] for name, code, _ in rows(CLASSIC_MAP)}
    assert classic.territory_group == expected
    for group in classic.groups:
        assert group.territories == {t for t, g in expected.items() if g == group.id}


def test_classic_has_83_symmetric_borders_equal_to_the_reference(classic: Board) -> None:
    """000_ed9208fe5525be2d.txt: "Vissa territorier är angränsande. Det betyder att de antingen
    delar gräns eller också har en sjöväg"; docs/rules.md, "The board": 83 undirected borders."""
    # rule: 000-adjacent
    assert len(classic.border_kinds) == 83
    for a, ns in classic.neighbours.items():
        assert a not in ns
        for b in ns:
            assert a in classic.neighbours[b], (a, b)
    expected = {
        ident(name): sorted(ident(n) for n in ns.split(",")) for name, _, ns in rows(CLASSIC_MAP)
    }
    assert {t: sorted(ns) for t, ns in classic.neighbours.items()} == expected
    assert sum(len(ns) for ns in classic.neighbours.values()) == 2 * 83


@pytest.mark.parametrize(
    ("territory", "neighbours"),
    [
        ("greenland", {"northwest_territory", "ontario", "quebec", "iceland"}),
        (
            "north_africa",
            {"egypt", "western_europe", "brazil", "southern_europe", "east_africa", "congo"},
        ),
        ("alaska", {"kamchatka", "northwest_territory", "alberta"}),
    ],
)
def test_worked_border_examples(classic: Board, territory: str, neighbours: set[str]) -> None:
    """003_281a902b564cb498.txt: "Groenland kan het Northwest Territory, Ontario, Quebec en
    IJsland aanvallen. Noord-Afrika kan Egypte, West-Europa en Brazilië aanvallen ...
    Alaska wordt beschouwd als grenzend aan en kan aanvallen, Kamtsjatka" (the book's
    list for North Africa is partial; the rest is from reference/classic-map.txt)."""
    # rule: 000-alaska-kamchatka
    # rule: 001-greenland-example
    # rule: 003-north-africa
    # rule: 003-alaska
    assert set(classic.neighbours[territory]) == neighbours
    for other in neighbours:
        assert classic.adjacent(territory, other)
        assert classic.adjacent(other, territory)
    assert not classic.adjacent("greenland", "alaska")


def test_sea_lanes_of_the_2006_book_are_borders(classic: Board) -> None:
    """000_ed9208fe5525be2d.txt: "sjövägar förenar Storbritannien med Västeuropa, Egypten
    med Sydeuropa och Brasilien med Nordafrika ... En av sjövägarna sträcker sig från
    Asien, runt hela planen och ända till Nordamerika" (and "Siam och Indonesien")."""
    # rule: 000-sea-lanes
    for a, b in [
        ("great_britain", "western_europe"),
        ("egypt", "southern_europe"),
        ("brazil", "north_africa"),
        ("alaska", "kamchatka"),
        ("siam", "indonesia"),
    ]:
        assert classic.adjacent(a, b)


def test_classic_deck_is_44_cards_14_of_each_symbol_and_2_wild(classic: Board) -> None:
    """003_281a902b564cb498.txt: "42 kaarten zijn gemarkeerd met een territorium en een
    afbeelding van infanterie, cavalerie of artillerie. • twee “wild” kaarten gemarkeerd
    met alle drie de afbeeldingen, maar geen territorium"."""
    # rule: 000-contents
    # rule: 000-wilds
    # rule: 001-wild-cards
    # rule: 003-wilds
    assert len(classic.cards) == 44
    assert Counter(c.symbol for c in classic.cards) == {
        "infantry": 14,
        "cavalry": 14,
        "artillery": 14,
        WILD: 2,
    }
    wild = [c for c in classic.cards if c.symbol == WILD]
    assert all(c.territory is None for c in wild)
    pictured = [c.territory for c in classic.cards if c.territory is not None]
    assert sorted(pictured) == sorted(classic.territories)
    assert [c.id for c in classic.cards] == list(range(44))
    assert all(classic.card(c.id) is c for c in classic.cards)


def test_card_symbols_match_the_reference_deck(classic: Board) -> None:
    """000_ed9208fe5525be2d.txt: "Det finns 42 RISK-kort ett för varje territorium ...
    samt symbolen för infanteri, kavalleri eller artilleri"; symbols from
    reference/classic-cards.txt."""
    # rule: 000-cards-42
    # rule: 001-cards
    # rule: 003-cards
    expected = {ident(name): SYMBOLS[code] for name, code in rows(CLASSIC_CARDS)}
    actual = {c.territory: c.symbol for c in classic.cards if c.territory is not None}
    assert actual == expected


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/reference is not next to this checkout")
def test_embedded_reference_copies_have_not_drifted() -> None:
    """The copies above equal the shared reference files, line for line."""
    for name, copy_ in [("classic-map.txt", CLASSIC_MAP), ("classic-cards.txt", CLASSIC_CARDS)]:
        shared = rows((SHARED / name).read_text("utf-8"))
        assert shared == rows(copy_), name


def test_board_to_dict_round_trips_the_classic_board(classic: Board) -> None:
    """Boards are data: the public description rebuilds the same board."""
    assert board_from_dict(classic.to_dict()) == classic
    assert classic.to_dict()["borders"][0] == ["afghanistan", "china", "land"]


def test_shipped_boards_are_listed_and_unknown_ones_refused() -> None:
    """Boards ship as package data and load by name."""
    assert {"classic", "middle_earth"} <= set(board_names())
    with pytest.raises(BoardError, match="'atlantis'"):
        load_board("atlantis")


# Invalid boards -------------------------------------------------------------


def _without_border(data: dict[str, Any], a: str, b: str) -> None:
    data["borders"] = [x for x in data["borders"] if {x[0], x[1]} != {a, b}]


BREAKAGES = {
    "duplicate territory id": (
        lambda d: d["territories"].append(dict(d["territories"][0])),
        "duplicate territory",
    ),
    "group names an unknown territory": (
        lambda d: d["groups"][0]["territories"].append("atlantis"),
        "unknown territory 'atlantis'",
    ),
    "territory in two groups": (
        lambda d: d["groups"][1]["territories"].append("alaska"),
        "'alaska' is in two groups",
    ),
    "territory in no group": (
        lambda d: d["groups"][0]["territories"].remove("alaska"),
        "no group",
    ),
    "border to an unknown territory": (
        lambda d: d["borders"].append(["alaska", "atlantis", "sea"]),
        "bad border 'alaska' - 'atlantis'",
    ),
    "border to itself": (
        lambda d: d["borders"].append(["alaska", "alaska", "land"]),
        "bad border 'alaska' - 'alaska'",
    ),
    "unknown border kind": (
        lambda d: d["borders"].append(["alaska", "iceland", "tunnel"]),
        "unknown kind 'tunnel'",
    ),
    "missing card": (lambda d: d["cards"].pop(0), "card ids"),
    "card for a territory missing": (
        lambda d: d["cards"][0].update(territory="alberta"),
        "one card per territory",
    ),
    "three wild cards": (
        lambda d: d["cards"].append({"id": 44, "territory": None, "symbol": "wild"}),
        "2 wild",
    ),
    "card ids out of order": (
        lambda d: d["cards"].reverse(),
        "card ids",
    ),
}


@pytest.mark.parametrize("fault", sorted(BREAKAGES))
def test_invalid_boards_raise_board_error_naming_the_fault(raw: dict[str, Any], fault: str) -> None:
    """Loading a board validates it: symmetric borders, every territory in one group, one
    card per territory."""
    board_from_dict(copy.deepcopy(raw))  # the unbroken file loads
    breaks, message = BREAKAGES[fault]
    breaks(raw)
    with pytest.raises(BoardError, match=message) as caught:
        board_from_dict(raw)
    assert caught.value.code == "invalid_board"


def test_a_border_listed_once_is_symmetric(raw: dict[str, Any]) -> None:
    """Borders are undirected pairs: a one-way listing still joins both sides."""
    _without_border(raw, "alaska", "kamchatka")
    raw["borders"].append(["kamchatka", "alaska", "sea"])
    board = board_from_dict(raw)
    assert board.adjacent("alaska", "kamchatka") and board.adjacent("kamchatka", "alaska")


def test_river_and_mountain_borders_are_not_adjacent(raw: dict[str, Any]) -> None:
    """docs/rules.md, "The Middle-earth board" (002_84c66041fccdfcee.txt: "BERG - det går inte att
    ta sig över dem"): impassable border kinds are recorded but join nothing."""
    _without_border(raw, "alaska", "kamchatka")
    raw["borders"].append(["alaska", "kamchatka", "mountain"])
    board = board_from_dict(raw)
    assert not board.adjacent("alaska", "kamchatka")
    assert board.border_kinds[frozenset(("alaska", "kamchatka"))] == "mountain"


def test_a_border_listed_twice_with_conflicting_kinds_is_refused(raw: dict[str, Any]) -> None:
    """A pair listed as "land" and again as "river" loads as adjacent yet impassable:
    ``_borders`` adds the adjacency on the first listing and overwrites the kind on the
    second. The board is inconsistent and should be refused."""
    raw["borders"].append(["greenland", "iceland", "river"])
    with pytest.raises(BoardError):
        board_from_dict(raw)


def test_a_missing_field_raises_board_error(raw: dict[str, Any]) -> None:
    """``board_from_dict`` promises "raises BoardError naming the first fault"; a group
    without ``bonus`` escapes as a bare KeyError."""
    del raw["groups"][0]["bonus"]
    with pytest.raises(BoardError, match="bonus"):
        board_from_dict(raw)


# Middle-earth ---------------------------------------------------------------


@pytest.fixture(scope="module")
def middle_earth() -> Board:
    return load_board("middle_earth")


def test_middle_earth_has_42_territories_in_6_regions(middle_earth: Board) -> None:
    """002_84c66041fccdfcee.txt: "I den här specialutgåvan av Risk kan du avgöra Norra
    Midgårds öde"; docs/rules.md, "The Middle-earth board": 42 territories in 6 regions, Arnor 7,
    Rhovanion 5, Rohan 4, Mirkwood 4, Eriador 3, Rhûn 2 armies of bonus."""
    # rule: 002-contents
    # rule: 002-regions
    assert len(middle_earth.territories) == 42
    assert {g.id: g.bonus for g in middle_earth.groups} == {
        "arnor": 7,
        "rhovanion": 5,
        "rohan": 4,
        "mirkwood": 4,
        "eriador": 3,
        "rhun": 2,
    }
    assert sum(len(g.territories) for g in middle_earth.groups) == 42
    for a, ns in middle_earth.neighbours.items():
        assert all(a in middle_earth.neighbours[b] for b in ns)


def test_middle_earth_strongholds(middle_earth: Board) -> None:
    """002_84c66041fccdfcee.txt: "Befästningar markeras av och är Annum Innas, Vattnadal,
    Morias gruvor, Dol Guldur, Isengård och Helms klyfta"."""
    assert middle_earth.strongholds == {
        "evendim_hills": "Annuminas",
        "rhudaur": "Rivendell",
        "moria": "Mines of Moria",
        "south_mirkwood": "Dol Guldur",
        "fangorn": "Isengard",
        "west_rohan": "Helm's Deep",
    }


def test_middle_earth_fellowship_path(middle_earth: Board) -> None:
    """002_84c66041fccdfcee.txt: "Brödraskapet, som representeras av Ringen, börjar sin
    färd i Fylke ... När brödraskapet lämnar Döda Träsken med Ringen, är spelet slut"."""
    path = middle_earth.path
    assert path[0].territory == "the_shire"
    assert path[-1].territory == "dead_marshes"
    assert [s.territory for s in path if s.needs_roll] == ["moria", "lorien", "dead_marshes"]
    assert len(path) == 14
    assert all(s.territory in middle_earth.territory_names for s in path)


def test_middle_earth_cards_by_side(middle_earth: Board) -> None:
    """docs/rules.md, "The Middle-earth board" (002_84c66041fccdfcee.txt: "42 territoriekort, 2
    jokerkort"): territory cards 9 good, 9 evil, 24 neutral, and 2 wild."""
    # rule: 002-card-sides-count
    sides = Counter(c.side for c in middle_earth.cards if c.symbol != WILD)
    assert sides == {"good": 9, "evil": 9, "neutral": 24}
    assert sum(c.symbol == WILD for c in middle_earth.cards) == 2


def test_board_to_dict_round_trips_middle_earth(middle_earth: Board) -> None:
    """The LotR deal (002: "Sortera goda, onda och neutrala territoriekort") needs each
    card's side; ``to_dict`` leaves it out, so the served description loses it."""
    assert board_from_dict(middle_earth.to_dict()) == middle_earth


# Middle-earth against the shared reference file --------------------------

ME_REFERENCE = SHARED / "middle-earth.txt"
needs_me_reference = pytest.mark.skipif(
    not ME_REFERENCE.is_file(), reason="shared/reference is not next to this checkout"
)


def _me_reference() -> tuple[list[list[str]], str]:
    text = ME_REFERENCE.read_text("utf-8")
    return [r for r in rows(text) if len(r) == 6], text


def _pairs(text: str) -> list[frozenset[str]]:
    """'A-B, C-D' (line breaks anywhere) as pairs of territory ids."""
    flat = " ".join(line.lstrip("#").strip() for line in text.splitlines())
    return [frozenset(ident(end.strip()) for end in pair.split("-")) for pair in flat.split(",")]


def _me_bridges(text: str) -> list[frozenset[str]]:
    block = text.split("all among the", 1)[1].split("below:", 1)[1].split("#   HARBOURS", 1)[0]
    return _pairs(block.rstrip().rstrip("."))


@needs_me_reference
def test_middle_earth_land_borders_equal_the_reference(middle_earth: Board) -> None:
    """middle-earth.txt: the 69 agreed borders, each listed under both ends; plus the two
    harbour links ("These two links are NOT in the 69 below: add them with kind harbour")."""
    table, _ = _me_reference()
    listed = {frozenset((ident(r[0]), ident(n))) for r in table for n in r[5].split(",")}
    assert len(listed) == 69
    harbour = {frozenset(p) for p, k in middle_earth.border_kinds.items() if k == "harbour"}
    assert set(middle_earth.border_kinds) == listed | harbour
    assert harbour == {frozenset({"mithlond", "forodwaith"}), frozenset({"mithlond", "minhiriath"})}
    assert middle_earth.harbours == {"forodwaith", "mithlond", "minhiriath"}


@needs_me_reference
def test_middle_earth_has_the_15_bridges_of_the_reference(middle_earth: Board) -> None:
    """002_84c66041fccdfcee.txt: "FLOD - det går bara att ta sig över floderna via broarna";
    middle-earth.txt: "BRIDGES (rivers are crossed only here), 15 on this board"."""
    _, text = _me_reference()
    bridges = set(_me_bridges(text))
    assert len(bridges) == 15
    assert {p for p, k in middle_earth.border_kinds.items() if k == "bridge"} == bridges
    others = {k for p, k in middle_earth.border_kinds.items() if p not in bridges}
    assert others == {"land", "harbour"}
    assert middle_earth.border_kind("the_shire", "buckland") == "bridge"
    assert middle_earth.border_kind("the_shire", "tower_hills") == "land"


BOOK_CARD_SIDES = {"rhudaur": "evil", "forlindon": "good", "emyn_muil": "neutral"}


@needs_me_reference
def test_middle_earth_territory_features_equal_the_reference(middle_earth: Board) -> None:
    """middle-earth.txt: region, card class (G/E/N), card symbol, stronghold or site of power
    per territory (002: "Runt om i Midgård ligger uråldriga maktfästen")."""
    # rule: 002-region-bonus
    table, _ = _me_reference()
    sides = {"G": "good", "E": "evil", "N": "neutral"}
    cards = {c.territory: c for c in middle_earth.cards if c.territory is not None}
    for name, region, side, symbol, feature, _ in table:
        t = ident(name)
        assert middle_earth.territory_group[t] == ident(region), t
        # The reference: "Card classes of Rhudaur, Forlindon and Emyn Muil rest on one
        # source"; the board follows the 2002 book's captions for those three
        # (002_84c66041fccdfcee.txt: «RHUDAUR Onda territoriekort FORLINDON Goda
        # territoriekort EMYN MUIL Neutrala territoriekort»; docs/rules.md).
        expected = BOOK_CARD_SIDES.get(t, sides[side])
        assert (cards[t].side, cards[t].symbol) == (expected, symbol), t
        if feature.startswith("STRONGHOLD "):
            assert t in middle_earth.strongholds and t not in middle_earth.sites_of_power
        elif feature.startswith("SoP "):
            assert middle_earth.sites_of_power[t] == feature.removeprefix("SoP ")
        else:
            assert t not in middle_earth.strongholds and t not in middle_earth.sites_of_power
    assert "brown_lands" not in middle_earth.sites_of_power  # the later board's site: left out


@needs_me_reference
def test_middle_earth_path_equals_the_reference(middle_earth: Board) -> None:
    """middle-earth.txt: "The Shire > Buckland > ... > Dead Marshes [ROLL]"; 002: "När
    brödraskapet är i ett territorium med en måste du slå tärningen ... mer än 3"."""
    _, text = _me_reference()
    block = text.split("of 4 or more. The 2002 game ends", 1)[1].split("\n", 1)[1]
    block = block.split("#\n", 1)[0]
    flat = " ".join(line.lstrip("#").strip() for line in block.splitlines())
    steps = [step.strip() for step in flat.split(">")]
    expected = [
        (ident(s.split("(")[0].replace("[ROLL]", "").strip()), "[ROLL]" in s) for s in steps
    ]
    assert [(s.territory, s.needs_roll) for s in middle_earth.path] == expected


def test_middle_earth_map_has_no_mountain_borders(middle_earth: Board) -> None:
    """002_84c66041fccdfcee.txt: "BERG - det går inte att ta sig över dem": mountains are
    no border at all, so no pair of neighbours is separated by one."""
    # rule: 002-mountains
    for a, ns in middle_earth.neighbours.items():
        for b in ns:
            assert middle_earth.border_kind(a, b) in {"land", "bridge", "harbour"}


def test_a_harbour_link_needs_harbours_at_both_ends() -> None:
    """002_84c66041fccdfcee.txt: "HAMN - du kan gå från alla territorier med en hamn till
    ett annat direkt angränsande territorium som också har en hamn"."""
    # rule: 002-harbours
    data = load_board("middle_earth").to_dict()
    for t in data["territories"]:
        if t["id"] == "forodwaith":
            del t["harbour"]
    with pytest.raises(BoardError, match="harbour link 'forodwaith' - 'mithlond'"):
        board_from_dict(data)


@pytest.mark.parametrize(
    ("change", "fault"),
    [
        (lambda d: d["path"].append({"territory": "nowhere", "needs_roll": False}), "nowhere"),
        (lambda d: d["path"].append(dict(d["path"][0])), "twice"),
        (lambda d: d["cards"][0].update(side="grey"), "side 'grey' is not one of"),
    ],
)
def test_bad_middle_earth_features_are_refused(change: Any, fault: str) -> None:
    data = load_board("middle_earth").to_dict()
    change(data)
    with pytest.raises(BoardError, match=fault):
        board_from_dict(data)
