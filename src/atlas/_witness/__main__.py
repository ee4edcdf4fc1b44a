"""``python -m atlas._witness``: the witness on its own, without the main ``atlas`` command."""

from __future__ import annotations

import argparse

from atlas._witness.cli import configure, main

if __name__ == "__main__":
    parser = configure(argparse.ArgumentParser(prog="python -m atlas._witness"))
    raise SystemExit(main(parser.parse_args()))
