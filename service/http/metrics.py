"""Prometheus metrics, one registry per app.

A registry per app (not the library's global one) lets tests create many
apps in one process without "duplicated timeseries" errors. ``Metrics``
is also the application service's ``Observer``, so commands, rule errors,
appends and conflicts are counted where they happen, whether a person or
a bot (in a worker process with its own ``Metrics``) sent the command.

Under ``risk serve`` with several worker processes each process counts
alone; ``risk serve`` then sets ``PROMETHEUS_MULTIPROC_DIR`` before the
library is imported, and ``/metrics`` merges every process's files.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

# Seconds; a command is a few ms, a long-poll up to 30 s.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30)
_NOT_ERRORS = frozenset({"accepted", "replayed", "version_conflict"})


class Metrics:
    def __init__(self) -> None:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            # The value class is picked when the library is first imported, which
            # may have been before the variable was set (in the parent process).
            values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "risk_http_requests", "HTTP requests", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "risk_http_request_duration_seconds",
            "Time to the response headers",
            ["method", "route"],
            buckets=_BUCKETS,
            registry=r,
        )
        self.commands = Counter(
            "risk_commands", "Commands by type and outcome", ["type", "outcome"], registry=r
        )
        self.rule_errors = Counter(
            "risk_rule_errors", "Commands refused by the rules, by code", ["code"], registry=r
        )
        self.appends = Counter("risk_appends", "Accepted appends", registry=r)
        self.events = Counter("risk_events_appended", "Events appended", registry=r)
        self.conflicts = Counter(
            "risk_append_conflicts", "Appends refused for a stale version", registry=r
        )
        self._children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self._command_children: dict[tuple[str, str], Counter] = {}
        self.rate_limited = Counter(
            "risk_rate_limited", "Requests refused by a rate limit", ["scope"], registry=r
        )

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        """One HTTP request; the labelled children are kept, as looking them up is
        a measurable share of a fast request."""
        key = (method, route, status)
        children = self._children.get(key)
        if children is None:
            children = (
                self.requests.labels(method, route, status),
                self.latency.labels(method, route),
            )
            self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    # -- the application service's Observer -----------------------------------

    def command(self, kind: str, outcome: str) -> None:
        """``outcome``: accepted, replayed, version_conflict, or a rule error code."""
        label = outcome if outcome in _NOT_ERRORS else "rejected"
        child = self._command_children.get((kind, label))
        if child is None:
            child = self._command_children[kind, label] = self.commands.labels(kind, label)
        child.inc()
        if label == "rejected":
            self.rule_errors.labels(outcome).inc()

    def appended(self, events: int) -> None:
        self.appends.inc()
        self.events.inc(events)

    def conflict(self) -> None:
        self.conflicts.inc()

    # -- exposition --------------------------------------------------------------

    def render(self) -> bytes:
        """The text format; merged over processes when running multi-process."""
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            merged = CollectorRegistry()
            multiprocess.MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
            return generate_latest(merged)
        return generate_latest(self.registry)
