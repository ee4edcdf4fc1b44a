"""What the browser tests share: Debian's Chromium under Playwright, and a built site served.

Each test module keeps its own fixtures (their scope and skips are its own) and builds them on
these generators: ``yield from chromium()`` and ``yield from served(folder)``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
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
