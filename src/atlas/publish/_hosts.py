"""Which Host names a local server answers: the loopback names, and how a Host header is read.

>>> host_name("[::1]:7878"), host_name("LOCALHOST"), host_name("::1"), host_name("[")
('::1', 'localhost', '::1', '')
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["LOOPBACK_NAMES", "host_name"]

#: The names of this machine that a server bound to loopback answers by default.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def host_name(value: str) -> str:
    """The host of a Host header or a name, lower case, without port or IPv6 brackets."""
    value = value.strip()
    if value.count(":") > 1 and not value.startswith("["):  # a bare IPv6 address
        value = f"[{value}]"
    try:
        name = urlsplit(f"//{value}").hostname
    except ValueError:
        return ""
    return (name or "").lower()
