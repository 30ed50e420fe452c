"""docs/engine.md's tables of layers match the folders and .importlinter's contracts (issue 38).

A reader learns the layers from the docs; the contracts are what `lint-imports`
holds the code to. This keeps the two from drifting apart: a package added,
renamed or moved in a contract shows up here until the page says so too.
"""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_DOC = ROOT / "docs" / "engine.md"


def contract_layers(name: str) -> list[str]:
    """A layers contract's layers, top first; ``a | b`` siblings as two."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    layers = config[f"importlinter:contract:{name}"]["layers"].split()
    return [layer for layer in layers if layer != "|"]


def table_after(heading: str) -> list[str]:
    """The first column of the first table under ``heading``, backticks and slashes dropped."""
    text = ENGINE_DOC.read_text().split(f"\n{heading}\n", 1)[1]
    rows = [line for line in text.split("\n## ", 1)[0].splitlines() if line.startswith("| `")]
    return [row.split("`")[1].rstrip("/") for row in rows]


def test_engine_layers_table_is_the_contract_in_order() -> None:
    assert table_after("## Layers") == contract_layers("engine-layers")


def test_every_engine_layer_in_the_table_is_a_folder_or_a_module() -> None:
    for layer in table_after("## Layers"):
        package = ROOT / "riskcore" / layer
        assert (package / "__init__.py").exists() or package.with_suffix(".py").exists(), layer


def test_every_riskcore_package_is_a_layer_of_the_table() -> None:
    listed = set(table_after("## Layers"))
    here = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "riskcore").iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        # mypyc_hints: the compiled build's decorators, beneath the layers and outside the contract
        or (p.suffix == ".py" and p.stem not in {"__init__", "mypyc_hints"})
    }
    assert here == listed


SERVER_LAYERS = "## The server around the engine"


def test_server_layers_table_is_the_contract_in_order() -> None:
    layers = [layer.removeprefix("service.") for layer in contract_layers("service-layers")]
    assert table_after(SERVER_LAYERS) == layers


def test_every_service_package_is_a_layer_of_the_table() -> None:
    packages = {p.name for p in (ROOT / "service").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(table_after(SERVER_LAYERS))


def test_readme_names_the_service_layers_in_the_contracts_order() -> None:
    """README's "Layout" line for service/ names its layers top first, as the contract."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Layout", 1)[1].split("```")[1]
    service = block.split("\nservice/", 1)[1].split("\nworkers/", 1)[0]
    layers = [layer.removeprefix("service.") for layer in contract_layers("service-layers")]
    named = list(dict.fromkeys(w for w in service.replace(",", " ").split() if w in layers))
    assert named == layers
