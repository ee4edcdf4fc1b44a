"""``atlas publish``: push the atlas into a SPARQL 1.1 store and check that it arrived whole.

The triples go through the Graph Store HTTP Protocol into a fresh temporary graph, are counted
there, and only then replace the target graph, with one SPARQL update (``MOVE``) that the store
runs as a whole. Then the target graph is counted. An error says what the store was seen to hold,
never more:

- before the ``MOVE``, no update names the target graph: it is intact, whatever failed;
- when the ``MOVE`` gets no answer or an error, the store is asked. A temporary graph still there
  means the ``MOVE`` was not done; it is then removed, so that a ``MOVE`` the store still holds
  cannot run later (its source is gone). A temporary graph gone means the ``MOVE`` was done. A
  store that cannot be asked gives "could not verify the state of <graph>".

The temporary graph is removed on failure, on ``KeyboardInterrupt`` and on SIGTERM (turned into
an exception while publishing, in the main thread, and delivered again after the clean-up). A run
killed outright leaves it behind; its name says whose it is, so that later runs for the same
target remove it once it is older than ``stale_after`` seconds (:data:`STALE_AFTER`, an hour):
``<dataset IRI>publish-temporary/<key of the target>/<UTC time>-<uuid>``. The names live in the
dataset's own namespace, where nobody else mints IRIs, rather than under the target, whose IRI
may already hold a fragment and whose namespace is someone else's. A run needs seconds, and never
sends its ``MOVE`` later than half that hour after its upload, so the graph of a run that is still
going is never taken for an orphan (clocks of the publishing hosts are assumed right to minutes).

The witness records go too, each into its own named graph (``<witness IRI>``, as ``atlas serve``
holds them), one after the other and each the same way, once the atlas is in place.

The default endpoints are those of an Oxigraph server (``URL/store``, ``URL/query``,
``URL/update``); other stores name theirs with :class:`Endpoints`.

The store's side, one request and queries on it, is :mod:`atlas.publish._remote`; credentials
and TLS, :mod:`atlas.publish._credentials`; the temporary graphs' names and SIGTERM,
:mod:`atlas.publish._temporary`; here is the run: upload, count, move, count, and clean-up.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import os
import time
from dataclasses import dataclass
from importlib import resources

import httpx
import pyoxigraph

from atlas.publish._credentials import (
    Credentials,
    CredentialsError,
    InsecureWarning,
    client_for,
    refuse_userinfo,
)
from atlas.publish._remote import (
    AuthError,
    Endpoints,
    NoAnswerError,
    PublishError,
    RefusedError,
    Remote,
    TLSError,
    call,
    restated,
)
from atlas.publish._temporary import created as _created
from atlas.publish._temporary import prefix as _prefix
from atlas.publish._temporary import sigterm_raises as _sigterm_raises
from atlas.publish._temporary import temporary as _temporary
from atlas.publish._witnessgraphs import witness_graphs
from atlas.query._lexer import substitute
from atlas.query._results import BASE_IRI, Solutions

__all__ = [
    "DEFAULT_GRAPH",
    "STALE_AFTER",
    "AuthError",
    "Credentials",
    "CredentialsError",
    "Endpoints",
    "InsecureWarning",
    "PublishError",
    "Published",
    "Remote",
    "TLSError",
    "publish",
]

#: The graph the atlas is published to unless told otherwise: the dataset's own IRI.
DEFAULT_GRAPH = BASE_IRI
#: Seconds after which a temporary graph left by a killed run is removed by a later run.
STALE_AFTER = 3600.0
#: A run sends its ``MOVE`` within this many seconds of its upload, or gives up.
_MOVE_WITHIN = STALE_AFTER / 2
_QUICK = 5.0  # seconds for each request of the clean-up after an interruption
_COUNT = "SELECT (COUNT(*) AS ?triples) WHERE { ?s ?p ?o }"
# Every named graph whose IRI starts with ?prefix, empty ones too (GRAPH ?g {} gives one
# solution per named graph of the store).
_GRAPHS_UNDER = "SELECT DISTINCT ?g WHERE { GRAPH ?g { } FILTER(STRSTARTS(STR(?g), ?prefix)) }"


@dataclass(frozen=True)
class Published:
    """What was published: the graph, its triples, the time taken, stale graphs removed.

    ``witness``: the witness graphs published too, each IRI with its number of triples.
    """

    graph: str
    triples: int
    seconds: float
    removed: tuple[str, ...] = ()
    witness: tuple[tuple[str, int], ...] = ()

    def __str__(self) -> str:
        text = f"published {self.triples} triples to <{self.graph}>"
        if self.witness:
            count = sum(triples for _, triples in self.witness)
            plural = "s" if len(self.witness) > 1 else ""
            text += f" and {len(self.witness)} witness graph{plural} ({count} triples)"
        text += f" in {self.seconds:.2f} s"
        if self.removed:
            plural = "s" if len(self.removed) > 1 else ""
            text += f"; removed {len(self.removed)} stale temporary graph{plural}"
        return text


def _iri(value: str, what: str) -> pyoxigraph.NamedNode:
    try:
        return pyoxigraph.NamedNode(value)
    except ValueError:
        raise PublishError(f"invalid {what} IRI {value!r}: give an absolute IRI") from None


def _payload() -> tuple[bytes, int]:
    """The shipped graph as N-Triples, and its number of triples."""
    from atlas.query import store  # noqa: PLC0415

    triples = [q.triple for q in store.store()]
    data = pyoxigraph.serialize(triples, format=pyoxigraph.RdfFormat.N_TRIPLES) or b""
    return data, len(triples)


def _witness_payloads() -> dict[str, tuple[bytes, int]]:
    """The witness graphs as N-Triples, and their numbers of triples, by graph IRI."""
    n_triples = pyoxigraph.RdfFormat.N_TRIPLES
    return {
        name: (pyoxigraph.serialize(triples, format=n_triples) or b"", len(triples))
        for name, triples in witness_graphs().items()
    }


def publish(
    url: str,
    graph: str = DEFAULT_GRAPH,
    *,
    endpoints: Endpoints | None = None,
    timeout: float = 60.0,
    client: httpx.Client | None = None,
    stale_after: float = STALE_AFTER,
    witness: bool = True,
    credentials: Credentials | None = None,
    ca_bundle: str | os.PathLike[str] | None = None,
    insecure: bool = False,
) -> Published:
    """Replace ``graph`` in the store at ``url`` by the shipped atlas, then count its triples.

    First the temporary graphs that earlier runs for ``graph`` left behind, and that are older
    than ``stale_after`` seconds, are removed; lower it only when no other publish to ``graph``
    can be running (0 removes them all). Then, unless ``witness`` is false, each witness record
    replaces its own named graph in the same way.

    ``credentials`` (:class:`Credentials`) go with every request; TLS is verified against the
    default authorities, or only those of the PEM file ``ca_bundle``, or (``insecure``, with an
    :class:`InsecureWarning`) not at all. With ``client``, configure that client instead.

    Raises:
        PublishError: the store is down, refused a request (:class:`AuthError` for 401 or 403),
            could not be verified (:class:`TLSError`), answered something unreadable or kept a
            different number of triples; the message says what the store was seen to hold.
        CredentialsError: a URL holds a user name or password; ``client`` with other options.
        CouldNotRunError: the CA bundle cannot be read.
    """
    started = time.perf_counter()
    target = _iri(graph, "graph").value
    if not (math.isfinite(stale_after) and stale_after >= 0):
        raise PublishError(f"stale_after is a number of seconds >= 0, not {stale_after!r}")
    points = endpoints or Endpoints.of(url)
    urls = (url, points.graph_store, points.query, points.update)
    refuse_userinfo(urls)
    http = client_for(
        urls, timeout, client, credentials=credentials, ca_bundle=ca_bundle, insecure=insecure
    )
    try:
        data, expected = _payload()
        named = _witness_payloads() if witness else {}
        if target in named:
            raise PublishError(
                f"<{target}> is the name of a witness graph: publish to another graph"
            )
        with _sigterm_raises():
            removed = _Run(http, points, target, timeout).publish(data, expected, stale_after)
            for name, (payload, count) in named.items():
                try:
                    run = _Run(http, points, name, timeout)
                    removed += run.publish(payload, count, stale_after)
                except PublishError as error:
                    raise PublishError(
                        f"<{target}> is published ({expected} triples), but the witness graph "
                        f"<{name}> is not: {error}"
                    ) from None
    finally:
        if client is None:
            http.close()
    done = tuple((name, count) for name, (_, count) in named.items())
    return Published(graph, expected, time.perf_counter() - started, removed, done)


@dataclass
class _Run:
    """One publishing run: the store, the target graph and the temporary graph once made."""

    client: httpx.Client
    endpoints: Endpoints
    target: str
    timeout: float
    temporary: str = ""

    def publish(self, data: bytes, expected: int, stale_after: float) -> tuple[str, ...]:
        """Remove stale graphs, upload, move; clean up after any failure or interruption."""
        try:
            try:
                removed = self.sweep(stale_after)
                self.temporary = _iri(_temporary(self.target), "temporary graph").value
                self.upload(data, expected)
            except PublishError as error:  # of its kind: refused, unreachable, no answer...
                raise restated(error, f"{error}; {self.withdraw()}") from None
            self.move(expected)
        except PublishError:
            raise  # each path above has cleaned up and said what it saw
        except BaseException:  # KeyboardInterrupt, SIGTERM: remove our graph, then go on
            self.drop_quietly()
            raise
        return removed

    def sweep(self, stale_after: float) -> tuple[str, ...]:
        """Remove this target's temporary graphs older than ``stale_after`` seconds."""
        prefix = _prefix(self.target)
        found = Remote(self.endpoints.query, None, self.client, self.timeout).query(
            _GRAPHS_UNDER, {"prefix": pyoxigraph.Literal(prefix)}
        )
        rows = found.rows if isinstance(found, Solutions) else ()
        names = sorted({t.value for r in rows for t in r if isinstance(t, pyoxigraph.NamedNode)})
        now = dt.datetime.now(dt.UTC)
        stale = []
        for name in names:
            created = _created(name, prefix)
            old = created is not None and (now - created).total_seconds() > stale_after
            if old and self.delete(name):  # not if another run removed it meanwhile
                stale.append(name)
        return tuple(stale)

    def upload(self, data: bytes, expected: int) -> None:
        """Put the triples into the temporary graph and check that the store kept them all.

        A run whose upload took so long that another run could take its graph for an orphan
        stops here.
        """
        uploaded = time.monotonic()
        try:
            call(
                self.client,
                "PUT",
                self.endpoints.graph_store,
                "upload",
                timeout=self.timeout,
                params={"graph": self.temporary},
                content=data,
                headers={"Content-Type": "application/n-triples"},
            )
        except AuthError:
            self.temporary = ""  # refused before anything was made: nothing to remove
            raise
        held = self.count(self.temporary)
        if held != expected:
            raise PublishError(f"partial upload: the store kept {held} of {expected} triples")
        if time.monotonic() - uploaded > _MOVE_WITHIN:
            raise PublishError(
                f"the upload took more than {_MOVE_WITHIN:.0f} s, so another run may take its "
                f"temporary graph for an orphan: <{self.target}> is not replaced"
            )

    def move(self, expected: int) -> None:
        """Replace the target by the temporary graph, then check the target's count."""
        terms = {
            "source": str(pyoxigraph.NamedNode(self.temporary)),
            "target": str(pyoxigraph.NamedNode(self.target)),
        }
        try:
            call(
                self.client,
                "POST",
                self.endpoints.update,
                "update (MOVE)",
                timeout=self.timeout,
                content=substitute(_move_update(), terms).encode(),
                headers={"Content-Type": "application/sparql-update"},
            )
        except PublishError as error:
            lost = isinstance(error, NoAnswerError)
            lead = f"the MOVE answer was lost ({error})" if lost else str(error)
            raise PublishError(f"{lead}; {self.after_failed_move(expected)}") from None
        try:
            held = self.count(self.target)
        except PublishError as error:
            raise PublishError(
                f"the store accepted the MOVE, but counting <{self.target}> then failed "
                f"({error}): its state is not verified"
            ) from None
        if held != expected:
            raise PublishError(
                f"<{self.target}> holds {held} triples after publishing, not {expected}: "
                "another client may be writing to it"
            )

    def after_failed_move(self, expected: int) -> str:
        """Ask the store whether a MOVE without a good answer was done, and say what it shows."""
        try:
            left = self.count(self.temporary)
            if left == expected and self.delete(self.temporary):
                return (
                    "the store shows that the MOVE was not done (the temporary graph was still "
                    f"there; it is now removed): the previous graph <{self.target}> is intact"
                )
            if left not in (0, expected):
                self.drop_quietly()
                return (
                    f"could not verify the state of <{self.target}>: the temporary graph "
                    f"<{self.temporary}> holds {left} of {expected} triples"
                )
            self.drop_quietly()  # some stores keep the emptied source as an empty graph
            held = self.count(self.target)
        except PublishError as error:
            self.drop_quietly()
            return f"could not verify the state of <{self.target}>: {error}"
        if held == expected:
            return (
                "the store shows that the MOVE was done: the new graph is in place in "
                f"<{self.target}> ({held} triples)"
            )
        return (
            f"the store shows that the MOVE was done, but <{self.target}> holds {held} "
            f"triples, not {expected}: another client may be writing to it"
        )

    def withdraw(self) -> str:
        """Remove the temporary graph after a failure before the MOVE; say what is known."""
        said = f"no update was sent for <{self.target}>: the previous graph is intact"
        if not self.temporary:
            return said
        try:
            self.delete(self.temporary)
        except PublishError as error:
            return (
                f"{said}; the temporary graph <{self.temporary}> could not be removed ({error}): "
                "a later publish removes it once it is stale"
            )
        return f"{said}; the temporary graph is removed"

    def count(self, graph: str, timeout: float | None = None) -> int:
        """The number of triples in ``graph``, from the query endpoint."""
        engine = Remote(self.endpoints.query, graph, self.client, timeout or self.timeout)
        result = engine.query(_COUNT, {})
        count = result.rows[0][0] if isinstance(result, Solutions) and result.rows else None
        if not isinstance(count, pyoxigraph.Literal) or not count.value.isdigit():
            raise PublishError(f"the store's query endpoint gave no count for <{graph}>")
        return int(count.value)

    def delete(self, graph: str, timeout: float | None = None) -> bool:
        """Remove ``graph`` (Graph Store DELETE); ``False`` when the store holds no such graph."""
        try:
            call(
                self.client,
                "DELETE",
                self.endpoints.graph_store,
                f"removal of <{graph}>",
                timeout=timeout or self.timeout,
                params={"graph": graph},
            )
        except RefusedError as error:
            if error.status == httpx.codes.NOT_FOUND:
                return False
            raise
        return True

    def drop_quietly(self) -> None:
        """Remove the temporary graph, if there is one and the store is still there to ask."""
        if self.temporary:
            with contextlib.suppress(PublishError):
                self.delete(self.temporary, _QUICK)


def _move_update() -> str:
    return (resources.files("atlas.query") / "queries" / "move-graph.ru").read_text(
        encoding="utf-8"
    )
