"""How ``atlas publish`` reaches a hosted store: its credentials and how its TLS is verified.

:class:`Credentials` holds a secret (HTTP basic ``user:password``, or a bearer token) read from
an environment variable or a file, never from the command line; its ``repr`` and every message
name where the secret came from, never the secret. :func:`connect` makes the HTTP client that
sends them: TLS certificates are verified against the system's (certifi's) authorities, or only
those of a CA bundle; ``insecure`` turns verification off, and :func:`warnings_for` says what
that, or credentials sent over plain HTTP, exposes.

>>> Credentials.bearer("s3cret", source="a test")
Credentials(scheme='bearer', source='a test', secret=<hidden>)
"""

from __future__ import annotations

import ipaddress
import os
import re
import ssl
import warnings
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx

from atlas.errors import AtlasError, CouldNotRunError

__all__ = [
    "SCHEMES",
    "Credentials",
    "CredentialsError",
    "InsecureWarning",
    "client_for",
    "connect",
    "refuse_userinfo",
    "warnings_for",
]

Scheme = Literal["basic", "bearer"]
#: The HTTP authentication schemes :class:`Credentials` sends.
SCHEMES: tuple[Scheme, ...] = ("basic", "bearer")
_MAX_AUTH_BYTES = 64 * 1024  # an auth file: its first line is read, the file must be small
_TOKEN = re.compile(r"[\x21-\x7e]+")  # what a header can carry: printable ASCII, no space
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class CredentialsError(AtlasError, ValueError):
    """Credentials that cannot be sent; the message names their source, never the secret."""


class InsecureWarning(UserWarning):
    """A publish whose secrets or data travel unprotected: TLS unverified, or plain HTTP."""


@dataclass(frozen=True)
class Credentials:
    """A secret for a store, and where it came from; ``repr`` and ``str`` hide the secret.

    ``scheme`` is ``basic`` (the secret is ``user:password``) or ``bearer`` (a token).
    Make them with :meth:`basic`, :meth:`bearer`, :meth:`from_env` or :meth:`from_file`.
    """

    scheme: Scheme
    source: str
    secret: str = field(repr=False)

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise CredentialsError(f"unknown scheme {self.scheme!r}; valid: {', '.join(SCHEMES)}")
        if self.scheme == "bearer" and not _TOKEN.fullmatch(self.secret):
            raise CredentialsError(
                f"the bearer token from {self.source} is empty or holds a space or a character"
                " outside printable ASCII, which an HTTP header cannot carry"
            )
        if self.scheme == "basic":
            if ":" not in self.secret:
                raise CredentialsError(f"{self.source} holds no 'user:password' (no ':')")
            if _CONTROL.search(self.secret):
                raise CredentialsError(
                    f"the user or password from {self.source} holds a control character,"
                    " which basic authentication cannot carry"
                )

    def __repr__(self) -> str:
        return f"Credentials(scheme={self.scheme!r}, source={self.source!r}, secret=<hidden>)"

    @classmethod
    def basic(cls, user: str, password: str, *, source: str = "the caller") -> Credentials:
        """HTTP basic credentials."""
        return cls("basic", source, f"{user}:{password}")

    @classmethod
    def bearer(cls, token: str, *, source: str = "the caller") -> Credentials:
        """A bearer token (``Authorization: Bearer <token>``)."""
        return cls("bearer", source, token.strip())

    @classmethod
    def from_text(cls, scheme: Scheme, data: bytes | str, source: str) -> Credentials:
        """Credentials from the first line of ``data`` (``user:password`` or a token)."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                raise CredentialsError(f"{source} is not UTF-8 text") from None
        line = data.split("\n", 1)[0].removesuffix("\r")
        if not line.strip():
            raise CredentialsError(f"{source} is empty: it holds no credentials on its first line")
        return cls(scheme, source, line.strip() if scheme == "bearer" else line)

    @classmethod
    def from_env(cls, scheme: Scheme, name: str) -> Credentials:
        """Credentials from the environment variable ``name``.

        Raises:
            CouldNotRunError: the variable is not set.
            CredentialsError: ``name`` is not a variable's name, or its value is not credentials.
        """
        if not _VARIABLE.fullmatch(name):
            raise CredentialsError(
                "the name of an environment variable is letters, digits and '_', not a value:"
                " never give a secret on the command line"
            )
        value = os.environ.get(name)
        if value is None:
            raise CouldNotRunError(f"the environment variable {name} is not set")
        return cls.from_text(scheme, value, f"the environment variable {name}")

    @classmethod
    def from_file(cls, scheme: Scheme, path: str | os.PathLike[str]) -> Credentials:
        """Credentials from the first line of the file ``path``.

        Raises:
            CouldNotRunError: the file cannot be read (missing, no permission, a folder, large).
            CredentialsError: its first line is not credentials.
        """
        from atlas.data._files import UnsafeFileError, read_bytes  # noqa: PLC0415

        source = f"the auth file {str(path)!r}"
        try:
            data = read_bytes(Path(path), _MAX_AUTH_BYTES)
        except OSError as error:
            raise CouldNotRunError(f"cannot read {source}: {error.strerror or error}") from None
        except (UnsafeFileError, ValueError) as error:
            raise CouldNotRunError(f"cannot read {source}: {error}") from None
        return cls.from_text(scheme, data, source)

    def auth(self) -> httpx.Auth:
        """The ``httpx`` authentication that sends these credentials."""
        if self.scheme == "basic":
            user, _, password = self.secret.partition(":")
            return httpx.BasicAuth(user, password)
        return _Bearer(self.secret)


class _Bearer(httpx.Auth):
    """``Authorization: Bearer <token>`` on every request."""

    def __init__(self, token: str) -> None:
        self._header = f"Bearer {token}"

    def __repr__(self) -> str:
        return "<bearer token, hidden>"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Add the header, send once."""
        request.headers["Authorization"] = self._header
        yield request


def _verify(ca_bundle: str | os.PathLike[str] | None, *, insecure: bool) -> ssl.SSLContext | bool:
    """What ``httpx`` verifies TLS certificates with: the default, a CA bundle, or nothing."""
    if insecure and ca_bundle is not None:
        raise CredentialsError("give a CA bundle or insecure, not both")
    if insecure:
        return False
    if ca_bundle is None:
        return True
    where = f"the CA bundle {str(ca_bundle)!r}"
    if Path(ca_bundle).is_dir():
        raise CouldNotRunError(f"cannot read {where}: it is a folder, not a file")
    try:
        return ssl.create_default_context(cafile=os.fspath(ca_bundle))
    except ssl.SSLError:
        raise CouldNotRunError(f"{where} holds no certificate that can be read (PEM)") from None
    except OSError as error:
        raise CouldNotRunError(f"cannot read {where}: {error.strerror or error}") from None


def connect(
    timeout: float,
    *,
    credentials: Credentials | None = None,
    ca_bundle: str | os.PathLike[str] | None = None,
    insecure: bool = False,
) -> httpx.Client:
    """An HTTP client that sends ``credentials`` and verifies TLS as told.

    Raises:
        CouldNotRunError: the CA bundle cannot be read.
        CredentialsError: both a CA bundle and ``insecure``.
    """
    verify = _verify(ca_bundle, insecure=insecure)
    auth = credentials.auth() if credentials is not None else None
    return httpx.Client(timeout=timeout, auth=auth, verify=verify)


def client_for(
    urls: Iterable[str],
    timeout: float,
    client: httpx.Client | None,
    *,
    credentials: Credentials | None,
    ca_bundle: str | os.PathLike[str] | None,
    insecure: bool,
    stacklevel: int = 2,
) -> httpx.Client:
    """``client``, or one made by :func:`connect`, once :func:`warnings_for` ``urls`` are given.

    Raises:
        CredentialsError: ``client`` came with credentials or TLS options.
        CouldNotRunError: the CA bundle cannot be read.
    """
    if client is not None and (credentials or ca_bundle is not None or insecure):
        raise CredentialsError("give credentials and TLS options, or a client, not both")
    for text in warnings_for(urls, credentials=credentials is not None, insecure=insecure):
        warnings.warn(text, InsecureWarning, stacklevel=stacklevel + 1)
    if client is not None:
        return client
    return connect(timeout, credentials=credentials, ca_bundle=ca_bundle, insecure=insecure)


def refuse_userinfo(urls: Iterable[str]) -> None:
    """Refuse a URL that holds a user name or password: it would be shown in every message.

    Raises:
        CredentialsError: one does (the URL is not quoted).
    """
    for url in urls:
        try:
            userinfo = httpx.URL(url).userinfo
        except httpx.InvalidURL:
            continue  # said by the request that uses it
        if userinfo:
            raise CredentialsError(
                "a store URL holds a user name or password: give credentials with --auth and"
                " --auth-env or --auth-file (credentials= in Python), never in the URL"
            )


def _origin(url: str) -> str:
    """``http://host:port`` of a URL (the URL itself if it cannot be read)."""
    try:
        return f"http://{httpx.URL(url).netloc.decode('ascii')}"
    except (httpx.InvalidURL, UnicodeDecodeError):
        return url


def _loopback(url: str) -> bool:
    try:
        host = httpx.URL(url).host
    except httpx.InvalidURL:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def warnings_for(urls: Iterable[str], *, credentials: bool, insecure: bool) -> list[str]:
    """What a publish to ``urls`` exposes: unverified TLS, or credentials over plain HTTP."""
    said = []
    if insecure:
        said.append(
            "TLS certificates are not verified (insecure): anyone on the way to the store can"
            " read the credentials and change what is published"
        )
    plain = sorted(
        {_origin(u) for u in urls if u.lower().startswith("http://") and not _loopback(u)}
    )
    if credentials and plain:
        said.append(
            f"credentials are sent unencrypted over plain HTTP to {', '.join(plain)}: use https"
        )
    return said
