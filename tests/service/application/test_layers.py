"""The application service knows no HTTP: statuses and problem documents are the API's."""

from __future__ import annotations

import json
import subprocess
import sys

from service.application.errors import ServiceError
from service.http.problems import SERVICE_ERROR_STATUS
from tests.service.api_helpers import ROOT

HTTP = ("flask", "werkzeug", "marshmallow", "service.http")


def test_the_application_and_the_workers_import_nothing_of_the_api() -> None:
    code = (
        "import json, sys, service.application.games, service.application.records, workers.jobs\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    leaked = [m for m in json.loads(out.stdout) if m.startswith(HTTP)]
    assert leaked == []


def test_every_application_error_has_its_status_in_the_one_table() -> None:
    assert set(ServiceError.__subclasses__()) == set(SERVICE_ERROR_STATUS)
