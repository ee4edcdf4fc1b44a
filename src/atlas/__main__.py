"""``python -m atlas``: the command-line interface."""

from atlas.cli import main

raise SystemExit(main())
