"""Issue 50, SSRF: a webhook URL whose host resolves to loopback, private, link-local,
multicast or reserved addresses is refused unless RISK_WEBHOOK_ALLOW_PRIVATE=1; only
http(s) on ports 80 and 443 (any port when private addresses are allowed)."""

from __future__ import annotations

import pytest

from service.application.webhook_urls import UnsafeWebhookUrl, check_url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data",  # the cloud metadata service
        "http://localhost/hook",  # a name resolving to loopback
        "http://[::1]/hook",
        "http://192.168.1.20/hook",
        "http://224.0.0.1/hook",  # multicast
        "http://0.0.0.0/hook",
        "http://[::ffff:127.0.0.1]/hook",  # loopback in IPv6 clothing
        "http://100.64.0.1/hook",  # carrier-grade NAT: not global
    ],
)
def test_private_addresses_are_refused_without_the_setting(url: str) -> None:
    with pytest.raises(UnsafeWebhookUrl, match="non-public address"):
        check_url(url)


def test_the_setting_allows_them_and_any_port() -> None:
    target = check_url("http://localhost:8123/hook?x=1", allow_private=True)
    assert target.address in {"127.0.0.1", "::1"}
    assert (target.host, target.port, target.path) == ("localhost", 8123, "/hook?x=1")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://93.184.216.34/hook", "only http and https"),
        ("http://93.184.216.34:8080/hook", "not a standard port"),
        ("http://user:pw@93.184.216.34/hook", "credentials"),
        ("http:///hook", "no host"),
        ("http://no-such-host.invalid/hook", "does not resolve"),
    ],
)
def test_other_refusals_say_why(url: str, why: str) -> None:
    with pytest.raises(UnsafeWebhookUrl, match=why):
        check_url(url)


def test_a_public_address_on_a_standard_port_is_taken() -> None:
    target = check_url("https://93.184.216.34/hooks/risk")
    assert (target.scheme, target.port, target.address) == ("https", 443, "93.184.216.34")


def test_a_name_that_rebinds_to_loopback_is_refused_at_its_next_check() -> None:
    """Checked again before each send: a name public at registration and loopback later."""
    answers = iter([["93.184.216.34"], ["127.0.0.1"]])

    def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    assert check_url("http://rebind.example/h", resolver=rebinding).address == "93.184.216.34"
    with pytest.raises(UnsafeWebhookUrl):
        check_url("http://rebind.example/h", resolver=rebinding)
