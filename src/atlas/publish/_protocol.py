"""The query of a SPARQL 1.1 Protocol request: read whole, or refused with a status and a reason.

A request holds exactly one query: in the URL (GET), in a form body (POST
``application/x-www-form-urlencoded``, where the URL may carry other parameters) or as the body
(POST ``application/sparql-query``). Two queries anywhere are refused (400), and so are updates,
since the endpoint is read-only. The endpoint answers over its own dataset only: the dataset
parameters ``default-graph-uri`` and ``named-graph-uri`` are refused with 400 wherever they appear
(the URL or the body), as section 2.1.4 of the protocol allows a service that does not let clients
choose the dataset. Text is UTF-8: another declared charset is refused (415), and so are bytes that
are not UTF-8 (400).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl

if TYPE_CHECKING:
    from starlette.requests import Request

__all__ = ["DATASET_PARAMETERS", "RefusalError", "query_of"]

#: The protocol's parameters that choose a dataset, refused by this endpoint.
DATASET_PARAMETERS = ("default-graph-uri", "named-graph-uri")
_UPDATE_PARAMETERS = ("update", "using-graph-uri", "using-named-graph-uri")
NO_UPDATES = "SPARQL updates are refused: this endpoint is read-only"
_FORM = "application/x-www-form-urlencoded"
_DIRECT = "application/sparql-query"


class RefusalError(Exception):
    """A request answered with an error status and a one-line message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _parameters(text: str, where: str) -> list[tuple[str, str]]:
    """The parameters of a query string or form body, percent-decoded as strict UTF-8."""
    try:
        return parse_qsl(text, keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise RefusalError(400, f"the {where} is not UTF-8 once percent-decoded") from None


def _media(request: Request) -> tuple[str, str]:
    """The media type of a request's body, and its charset ('' when none is declared)."""
    kind, *params = (p.strip() for p in request.headers.get("content-type", "").split(";"))
    charset = ""
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return kind.lower(), charset


async def _body(request: Request, limit: int) -> str:
    """The body of a POST request as text, refused past ``limit`` bytes or when not UTF-8."""
    declared = request.headers.get("content-length", "")
    too_large = RefusalError(413, f"the request is larger than the limit of {limit} bytes")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            raise too_large
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise RefusalError(400, "the request body is not UTF-8") from None


async def _posted(request: Request, limit: int) -> list[tuple[str, str]]:
    """The parameters of a POST request: those of its URL, and its form or its query."""
    kind, charset = _media(request)
    if kind == "application/sparql-update":
        raise RefusalError(400, NO_UPDATES)
    if kind not in (_FORM, _DIRECT):
        raise RefusalError(
            415,
            f"unsupported content type {kind!r}; send {_DIRECT} or {_FORM}",
        )
    if charset not in ("", "utf-8", "utf8"):
        raise RefusalError(415, f"unsupported charset {charset!r}; send the query as UTF-8")
    text = await _body(request, limit)
    params = _parameters(request.url.query, "URL")
    if kind == _DIRECT:
        return [*params, ("query", text)]
    return [*params, *_parameters(text, "form body")]


async def query_of(request: Request, limit: int, read_timeout: float) -> str:
    """The one query of a SPARQL Protocol request (the worker's guard judges it next).

    Raises:
        RefusalError: the request holds no query or more than one, an update, a dataset
            parameter, text that is not UTF-8, or more than ``limit`` bytes.
    """
    if request.method in ("GET", "HEAD"):
        if len(request.url.query) > limit:
            raise RefusalError(414, f"the query is longer than the limit of {limit} bytes")
        params = _parameters(request.url.query, "URL")
    else:
        try:
            params = await asyncio.wait_for(_posted(request, limit), read_timeout)
        except TimeoutError:
            raise RefusalError(
                408, f"the request body did not arrive within {read_timeout:g} s"
            ) from None
    names = [name for name, _ in params]
    if any(name in _UPDATE_PARAMETERS for name in names):
        raise RefusalError(400, NO_UPDATES)
    for name in DATASET_PARAMETERS:
        if name in names:
            raise RefusalError(
                400,
                f"{name} is refused: this endpoint answers over its own dataset only (the "
                "atlas as the default graph, the witness records as named graphs): leave the "
                "dataset out, or name graphs in the query with GRAPH",
            )
    queries = [value for name, value in params if name == "query"]
    if len(queries) > 1:
        raise RefusalError(400, f"a request holds exactly one query, this one holds {len(queries)}")
    if not queries or not queries[0].strip():
        raise RefusalError(400, "no query: pass it as 'query' (GET or form POST) or as the body")
    return queries[0]
