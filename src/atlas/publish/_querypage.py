"""The query page of ``atlas serve`` at ``/``: a form for the endpoint, with the named queries.

One HTML page, its CSS and script inline (nothing is loaded from anywhere, a Content Security
Policy says so to the browser). With script, the form posts the query to the endpoint and shows
the answer under it: a table for SELECT, the value of ASK, Turtle for CONSTRUCT and DESCRIBE.
Without script, the form is a plain ``GET`` of the page itself, ``?query=...``: the server asks
the endpoint and writes the same answer into the page (:func:`shown`). The examples are the
named queries shipped with the package (``atlas sparql --list``), their parameters left unbound.

>>> "<form" in page() and " src=" not in page()
True
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
from urllib.parse import urlencode

__all__ = ["ACCEPT", "failed", "headers", "page", "shown"]

#: What the page asks of the endpoint: results JSON for SELECT and ASK, Turtle for graphs.
ACCEPT = "application/sparql-results+json, text/turtle;q=0.9"
#: The status line, and the HTML of the answer under it; an error's status line is marked.
Shown = tuple[str, str, bool]

_FIRST = """\
PREFIX ea: <https://w3id.org/execution-atlas/vocab#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>

SELECT ?stage ?label WHERE {
  ?stage a ea:Stage ;
      rdfs:label ?label .
}
ORDER BY ?label"""
_WITNESS = """\
# The witness records: one named graph per recorded run
SELECT ?graph (COUNT(*) AS ?triples) WHERE {
  GRAPH ?graph { ?s ?p ?o }
}
GROUP BY ?graph
ORDER BY ?graph"""

_STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:64rem;margin:1.5rem auto;padding:0 1rem;
color:#1b1b1b;background:#fff}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}
textarea{width:100%;box-sizing:border-box;font:14px/1.4 ui-monospace,monospace;padding:.5rem}
button{font:inherit;padding:.3rem 1rem;margin:.5rem .5rem .5rem 0}
pre{background:#f4f4f4;padding:.5rem;overflow:auto;font-size:13px}
table{border-collapse:collapse;font-size:14px;width:100%}
th,td{border:1px solid #ccc;padding:.2rem .4rem;text-align:left;vertical-align:top;
word-break:break-word}
th{background:#eee}
#status{font-weight:600}#status.error{color:#a00}
details{margin:.5rem 0}summary{cursor:pointer}
code{font-family:ui-monospace,monospace}
"""

# Text is put into the page with textContent only, never as HTML.
_SCRIPT = """
"use strict";
const ENDPOINT = "sparql";
const form = document.getElementById("query-form");
const text = document.getElementById("query");
const out = document.getElementById("results");
const status = document.getElementById("status");
function cell(term) {
  if (!term) return "";
  if (term.type === "literal" && term["xml:lang"]) return term.value + " @" + term["xml:lang"];
  return term.type === "bnode" ? "_:" + term.value : term.value;
}
function table(data) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const name of data.head.vars) {
    const th = document.createElement("th");
    th.textContent = name;
    head.appendChild(th);
  }
  const body = t.createTBody();
  for (const row of data.results.bindings) {
    const tr = body.insertRow();
    for (const name of data.head.vars) tr.insertCell().textContent = cell(row[name]);
  }
  return t;
}
async function run(event) {
  event.preventDefault();
  out.replaceChildren();
  status.className = "";
  status.textContent = "Running\\u2026";
  try {
    const response = await fetch(ENDPOINT, {
      method: "POST",
      headers: {"Accept": "application/sparql-results+json, text/turtle;q=0.9"},
      body: new URLSearchParams({query: text.value}),
    });
    const kind = response.headers.get("Content-Type") || "";
    if (!response.ok) {
      status.className = "error";
      status.textContent = "Error " + response.status + ": " + (await response.text());
      return;
    }
    const cut = response.headers.get("Atlas-Results-Truncated");
    if (kind.startsWith("application/sparql-results+json")) {
      const data = await response.json();
      if ("boolean" in data) {
        status.textContent = "Answer: " + data.boolean;
        return;
      }
      const rows = data.results.bindings.length;
      status.textContent = rows + (rows === 1 ? " row" : " rows") + (cut ? " (" + cut + ")" : "");
      out.appendChild(table(data));
    } else {
      status.textContent = "Graph" + (cut ? " (" + cut + ")" : "");
      const pre = document.createElement("pre");
      pre.textContent = await response.text();
      out.appendChild(pre);
    }
  } catch (error) {
    status.className = "error";
    status.textContent = "The endpoint did not answer: " + error;
  }
}
form.addEventListener("submit", run);
for (const button of document.querySelectorAll("button[data-example]")) {
  button.addEventListener("click", () => {
    text.value = document.getElementById(button.dataset.example).textContent;
    text.focus();
    window.scrollTo(0, 0);
  });
}
"""


def _hash(source: str) -> str:
    digest = hashlib.sha256(source.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def headers() -> dict[str, str]:
    """The page's headers: its Content Security Policy allows its inline style and script only.

    The script may query this server; nothing is loaded from anywhere.
    """
    policy = (
        "default-src 'none'",
        f"style-src {_hash(_STYLE)}",
        f"script-src {_hash(_SCRIPT)}",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    )
    return {
        "Content-Security-Policy": "; ".join(policy),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Vary": "Accept",
    }


def _example(key: str, title: str, about: str, text: str, notes: tuple[str, ...] = ()) -> str:
    """One example: its title, what it does, its text, a link that runs it and a button."""
    link = html.escape("?" + urlencode({"query": text}))
    items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
    return (
        f"<details><summary><strong>{html.escape(title)}</strong>: {html.escape(about)}"
        f"</summary>{f'<ul>{items}</ul>' if items else ''}"
        f'<pre id="example-{key}">{html.escape(text)}</pre>'
        f'<button type="button" data-example="example-{key}">Use this query</button>'
        f'<a href="{link}">run it</a></details>'
    )


@functools.cache
def _examples() -> str:
    """The examples: a first query, the witness graphs, then every named query."""
    from atlas.query.store import named_queries  # noqa: PLC0415 - reads the .rq files

    parts = [
        _example("stages", "stages", "every stage of every atlas, by name.", _FIRST),
        _example("witness", "witness graphs", "the recorded runs and their size.", _WITNESS),
    ]
    for number, named in enumerate(named_queries().values()):
        notes = tuple(
            f"?{p.name} is left unbound here ({p.description}): bind it with VALUES ?{p.name}"
            " { <...> } to ask about one"
            for p in named.parameters
        )
        if named.selection:
            notes += ("the ?value variables take one dimension value each (atlas sparql --name)",)
        parts.append(_example(f"named-{number}", named.name, named.summary, named.text, notes))
    return "\n".join(parts)


def _cell(term: dict[str, str] | None) -> str:
    """A term of results JSON as a table shows it (as the page's script does)."""
    if term is None:
        return ""
    if term.get("type") == "literal" and term.get("xml:lang"):
        return f"{term['value']} @{term['xml:lang']}"
    return f"_:{term['value']}" if term.get("type") == "bnode" else str(term.get("value", ""))


def shown(fmt: str, body: bytes, truncated: str = "") -> Shown:
    """An answer of the endpoint (results JSON, or a graph as text) as the page shows it."""
    cut = f" ({truncated})" if truncated else ""
    if fmt != "json":
        return f"Graph{cut}", f"<pre>{html.escape(body.decode())}</pre>", False
    data = json.loads(body)
    if "boolean" in data:
        return f"Answer: {'true' if data['boolean'] else 'false'}", "", False
    names = [str(name) for name in data["head"]["vars"]]
    rows = data["results"]["bindings"]
    head = "".join(f"<th>{html.escape(name)}</th>" for name in names)
    body_rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(row.get(n)))}</td>" for n in names) + "</tr>"
        for row in rows
    )
    count = f"{len(rows)} {'row' if len(rows) == 1 else 'rows'}{cut}"
    return count, f"<table><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>", False


def failed(status: int, message: str) -> Shown:
    """A refusal of the endpoint as the page shows it."""
    return f"Error {status}: {message}", "", True


def page(query: str | None = None, answer: Shown = ("", "", False)) -> str:
    """The query page, as HTML text: with ``query`` in the form and its answer under it."""
    status, results, error = answer
    text = _FIRST if query is None else query
    marked = ' class="error"' if error else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Execution Atlas: SPARQL endpoint</title>
<style>{_STYLE}</style>
</head>
<body>
<h1>Execution Atlas: SPARQL endpoint</h1>
<p>A read-only SPARQL 1.1 endpoint over the atlas, at <code>sparql</code>: send a query with
<code>GET sparql?query=...</code> or a <code>POST</code> (a form, or the query as
<code>application/sparql-query</code>). The witness records are named graphs
(<code>GRAPH ?g {{ ... }}</code>); updates and dataset parameters are refused.</p>
<form id="query-form" action="." method="get">
<label for="query">Query</label>
<textarea id="query" name="query" rows="14" spellcheck="false">{html.escape(text)}</textarea>
<button type="submit">Run the query</button>
</form>
<p id="status" role="status"{marked}>{html.escape(status)}</p>
<div id="results">{results}</div>
<h2>Examples</h2>
<p>The named queries shipped with the atlas (<code>atlas sparql --list</code>), and two more.</p>
{_examples()}
<script>{_SCRIPT}</script>
</body>
</html>
"""
