"""What the browser tests share: Debian's Chromium under Playwright, and a built site served.

Each test module keeps its own fixtures (their scope and skips are its own) and builds them on
these generators: ``yield from chromium()`` and ``yield from served(folder)``.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium() -> Iterator[Any]:
    """Debian's Chromium, launched by Playwright (imported here: a test module skips without it)."""
    from playwright import sync_api  # noqa: PLC0415

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def served(folder: Path) -> Iterator[str]:
    """The site built in ``folder``, served on a free loopback port: its base URL."""
    from atlas.publish import site  # noqa: PLC0415 - the site package needs jinja2

    httpd = site.server(folder, 0, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    thread.join()
    httpd.server_close()


@dataclass
class Watched:
    """A page whose console errors and requests are recorded (``foreign``: those off the host)."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)


def watching(
    browser: Any, base_url: str, viewport: dict[str, int]
) -> Iterator[Callable[..., Watched]]:
    """Open pages (``opener(viewport=..., **context_options)``) that may reach ``base_url``'s host
    only; on the way out, each must have had no console error and no request off the host."""
    contexts: list[tuple[Any, Watched]] = []
    origin = urllib.parse.urlsplit(base_url).netloc

    def opener(**options: Any) -> Watched:
        context = browser.new_context(**{"viewport": viewport, **options})
        watched = Watched(context.new_page())

        def route(route: Any) -> None:
            url = route.request.url
            watched.requests.append(url)
            if urllib.parse.urlsplit(url).netloc == origin or url.startswith("data:"):
                route.continue_()
            else:
                watched.foreign.append(url)
                route.abort()

        context.route("**/*", route)
        watched.page.on(
            "console", lambda m: watched.errors.append(m.text) if m.type == "error" else None
        )
        watched.page.on("pageerror", lambda e: watched.errors.append(str(e)))
        contexts.append((context, watched))
        return watched

    yield opener
    for context, watched in contexts:
        context.close()
        assert watched.errors == [], "console errors"
        assert watched.foreign == [], "requests left the loopback host"
