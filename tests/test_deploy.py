"""deploy/ holds together (issue 8), checked statically: no Docker engine runs here.

The compose file and the Kubernetes manifests parse, reference commands the
`risk` CLI really has, files that exist, probe paths the API serves, and
config objects that are defined; the image is pinned and runs as non-root.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from riskcli.main import main as risk_cli

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
MANIFESTS = sorted((DEPLOY / "k8s").glob("*.yaml"))
OUR_IMAGE = "riskcore:latest"


def risk_subcommands() -> set[str]:
    return set(risk_cli.list_commands(click.Context(risk_cli)))  # the lazy server ones too


def api_paths() -> set[str]:
    return set(yaml.safe_load((ROOT / "openapi.yaml").read_text())["paths"])


def check_command(command: list[str]) -> None:
    assert command[0] == "risk", command
    assert command[1] in risk_subcommands(), f"`risk {command[1]}` does not exist"


def test_compose_services_run_real_commands_and_files() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert {"redis", "api", "worker"} <= set(services)
    for name, service in services.items():
        if service.get("image", "").startswith("riskcore") or "build" in service:
            check_command(service["command"])
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
        assert service.get("restart") == "unless-stopped"
    build = services["api"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).exists()
    assert "redis-data" in compose["volumes"]
    assert "healthcheck" in services["api"] and "healthcheck" in services["redis"]


def test_compose_redis_uses_the_store_config() -> None:
    text = (DEPLOY / "redis.conf").read_text()
    for setting in ("appendonly yes", "appendfsync everysec", "maxmemory-policy noeviction"):
        assert re.search(rf"^{setting}$", text, flags=re.M), setting


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifests_parse_and_reference_what_exists(path: Path) -> None:
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
    assert documents
    defined = {(d["kind"], d["metadata"]["name"]) for m in MANIFESTS for d in _docs(m)}
    for doc in documents:
        assert {"apiVersion", "kind", "metadata"} <= set(doc)
        if doc["kind"] in ("Deployment", "StatefulSet"):
            _check_workload(doc, defined)


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _check_workload(doc: dict[str, Any], defined: set[tuple[str, str]]) -> None:
    spec = doc["spec"]
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    for container in spec["template"]["spec"]["containers"]:
        if container["image"] == OUR_IMAGE:
            check_command(container["command"])
        for source in container.get("envFrom", []):
            for kind, ref in (("ConfigMap", "configMapRef"), ("Secret", "secretRef")):
                if ref in source:
                    assert (kind, source[ref]["name"]) in defined
        for probe in ("readinessProbe", "livenessProbe"):
            http = container.get(probe, {}).get("httpGet")
            if http:
                assert http["path"] in api_paths(), f"{probe} path {http['path']} not served"


def test_the_api_has_probes_on_readyz_and_healthz() -> None:
    api = next(d for d in _docs(DEPLOY / "k8s" / "api.yaml") if d["kind"] == "Deployment")
    container = api["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"


def test_dockerfile_is_pinned_non_root_and_copies_what_exists() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    for image in re.findall(r"^FROM\s+(\S+)", text, flags=re.M):
        assert ":" in image and not image.endswith(":latest"), f"unpinned base {image}"
    for source in re.findall(r"^COPY\s+(?!--from)(.+)\s+\S+$", text, flags=re.M):
        for item in source.split():
            assert (ROOT / item).exists(), f"COPY of missing {item}"
    assert re.search(r"^USER\s+(?!root|0\b)\S+", text, flags=re.M)
    cmd = re.search(r'^CMD\s+\["(.+?)"\]', text, flags=re.M)
    assert cmd is not None
    check_command(cmd.group(1).split('", "'))


def test_every_setting_used_in_deploy_is_one_the_code_reads() -> None:
    used = set()
    for path in [DEPLOY / "compose.yaml", *MANIFESTS]:
        used |= set(re.findall(r"\b(RISK_[A-Z_]+|REDIS_URL)\b", path.read_text()))
    known = set(re.findall(r"\b(RISK_[A-Z_]+|REDIS_URL)\b", _settings_sources()))
    assert used <= known, f"settings nobody reads: {sorted(used - known)}"


def _settings_sources() -> str:
    files = [ROOT / "service" / "settings.py", *sorted((ROOT / "riskcli").glob("*.py"))]
    return "\n".join(f.read_text() for f in files if f.exists())
