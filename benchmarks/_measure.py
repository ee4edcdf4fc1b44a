"""What every section of the benchmark shares: spreads, interleaved pairs, peak memory, tables.

A figure with a baseline is measured *interleaved*: A, B, A, B... in one run (whole processes for
start-up figures, alternating batches of calls for in-process ones), and reported as the median
of the per-pair ratios A/B with their min-max, beside the median (min-max) of each side. A busy
machine slows both sides of a pair alike, so the ratio holds where absolute figures drift. Each
section records the machine's load average before and after it, printed above its table.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import timeit
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ATLAS",
    "PYTHON",
    "Line",
    "Measured",
    "Pairs",
    "Row",
    "Section",
    "Spread",
    "batch",
    "child_json",
    "fmt_ratio",
    "fmt_time",
    "interleave",
    "machine",
    "measured",
    "mem_available_mib",
    "peak_kib",
    "process_seconds",
    "run_section",
    "samples",
    "verdict",
]

PYTHON = sys.executable
ATLAS = str(Path(PYTHON).with_name("atlas"))

Row = tuple[str, str, str, str]  # measure, value, goal, verdict
Line = Row | str  # a row of the table, or a note printed under it


def fmt_time(seconds: float) -> str:
    """A duration with a fitting unit."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(ratio: float) -> str:
    """A ratio with two digits below 10x, one above."""
    return f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x"


def verdict(ok: bool) -> str:  # noqa: FBT001
    """'met' or 'MISSED'."""
    return "met" if ok else "MISSED"


@dataclass(frozen=True)
class Spread:
    """Samples of one figure: their median, and their min-max."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        """The median sample."""
        return statistics.median(self.values)

    @property
    def low(self) -> float:
        """The smallest sample."""
        return min(self.values)

    @property
    def high(self) -> float:
        """The largest sample."""
        return max(self.values)

    def show(self, fmt: Callable[[float], str] = fmt_time) -> str:
        """``median (min-max)`` in the unit ``fmt`` gives."""
        return f"{fmt(self.median)} ({fmt(self.low)}-{fmt(self.high)})"


@dataclass(frozen=True)
class Pairs:
    """Samples of A and of B taken in turn (A, B, A, B...): the i-th of each make a pair."""

    a: tuple[float, ...]
    b: tuple[float, ...]

    @property
    def ratios(self) -> Spread:
        """A/B of each pair."""
        return Spread(tuple(x / y for x, y in zip(self.a, self.b, strict=True)))

    def show(self, a: str, b: str, fmt: Callable[[float], str] = fmt_time) -> str:
        """``R (pairs lo-hi); A median (min-max), B median (min-max); N pairs``."""
        r = self.ratios
        return (
            f"{fmt_ratio(r.median)} (pairs {fmt_ratio(r.low)}-{fmt_ratio(r.high)}); "
            f"{a} {Spread(self.a).show(fmt)}, {b} {Spread(self.b).show(fmt)}; "
            f"{len(self.a)} pairs"
        )


def interleave(a: Callable[[], float], b: Callable[[], float], pairs: int) -> Pairs:
    """Take ``pairs`` samples of each, in turn: a(), b(), a(), b()... (each returns seconds)."""
    xs: list[float] = []
    ys: list[float] = []
    for _ in range(pairs):
        xs.append(a())
        ys.append(b())
    return Pairs(tuple(xs), tuple(ys))


def batch(function: Callable[[], object], number: int) -> Callable[[], float]:
    """A sampler: the time of one call, averaged over a batch of ``number`` calls."""
    return lambda: timeit.timeit(function, number=number) / number


def samples(function: Callable[[], object], number: int, repeat: int) -> Spread:
    """``repeat`` batches of ``number`` calls (after one call to warm up): time per call."""
    function()
    return Spread(tuple(batch(function, number)() for _ in range(repeat)))


def process_seconds(command: Sequence[str]) -> Callable[[], float]:
    """A sampler: the wall time of one whole process; a process that fails raises."""

    def run() -> float:
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: PLW1510
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)!r} exited with {done.returncode}")
        return seconds

    return run


def peak_kib() -> int:
    """This process's peak resident memory in KiB.

    ``VmHWM`` where Linux has it: ``ru_maxrss`` outlives ``execve``, so in a child it can be
    the peak of the parent that started it.
    """
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# Runs a command and reports its wall time, exit status and peak memory. A lean process of its
# own starts it: a child's ru_maxrss starts from the memory of the process it was forked from,
# which for the benchmark is far larger than bare python; from this lean parent, the largest
# child's ru_maxrss is the child's own high-water mark (its VmHWM).
_MEASURE_SCRIPT = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    status = child.wait(float(sys.argv[1]))
except subprocess.TimeoutExpired:
    child.kill()
    child.wait()
    status = None
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": time.perf_counter() - started, "exit": status, "peak_kib": peak}))
"""


@dataclass(frozen=True)
class Measured:
    """One process: wall time, exit status (None: stopped at the timeout) and peak RSS."""

    seconds: float
    exit: int | None
    peak_mib: float


def measured(command: Sequence[str], timeout: float) -> Measured:
    """Run ``command`` from a lean parent; its wall time, exit status and peak memory."""
    out = subprocess.run(
        [PYTHON, "-c", _MEASURE_SCRIPT, str(timeout), *command],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    figures = json.loads(out)
    return Measured(figures["seconds"], figures["exit"], figures["peak_kib"] / 1024)


def _meminfo_mib(key: str) -> float:
    """A figure of ``/proc/meminfo`` in MiB (infinite where there is none)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) / 1024
    return float("inf")


def child_json(*args: str) -> Any:
    """Run ``python ARGS``; the JSON of its last line of output (its error output if it fails)."""
    done = subprocess.run([PYTHON, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1]
        raise RuntimeError(f"{' '.join(args[:2])} exited with {done.returncode}: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mem_available_mib() -> float:
    """The memory Linux says is available to start new work without swapping (MemAvailable)."""
    return _meminfo_mib("MemAvailable")


def machine() -> str:
    """One line about the machine and the versions measured."""
    import pyoxigraph  # noqa: PLC0415
    import rdflib  # noqa: PLC0415

    info = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next(
        (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
        platform.processor(),
    )
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{cpu}; {os.cpu_count()} CPUs ({usable} usable by this process); "
        f"{_meminfo_mib('MemTotal') / 1024:.1f} GiB memory, "
        f"{mem_available_mib() / 1024:.1f} GiB available; "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
        f"pyoxigraph {pyoxigraph.__version__}, rdflib {rdflib.__version__}"
    )


def _load() -> tuple[float, float, float]:
    one, five, fifteen = os.getloadavg()
    return one, five, fifteen


@dataclass
class Section:
    """A section's lines, with the load average before and after it and its duration."""

    name: str
    lines: list[Line] = field(default_factory=list)
    before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    after: tuple[float, float, float] = (0.0, 0.0, 0.0)
    seconds: float = 0.0
    failed: bool = False

    def header(self) -> str:
        """The line above the table: the load averages, the CPUs, the time taken."""
        shown = ", ".join(f"{x:.2f}" for x in self.before)
        then = ", ".join(f"{x:.2f}" for x in self.after)
        return (
            f"### {self.name}\n\nload average (1, 5, 15 min): {shown} before, {then} after; "
            f"{os.cpu_count()} CPUs; section took {self.seconds:.0f} s"
        )

    def print(self) -> None:
        """The header, the rows as an aligned Markdown table, then the notes."""
        print(self.header() + "\n")
        rows = [line for line in self.lines if not isinstance(line, str)]
        head: Row = ("measure", "value", "goal", "")
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
        for i, row in enumerate([head, *rows]):
            print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
            if i == 0:
                print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        notes = [line for line in self.lines if isinstance(line, str)]
        if notes:
            print()
            for note in notes:
                print(f"- {note}")
        print(flush=True)


def run_section(name: str, make: Callable[[], list[Line]]) -> Section:
    """Run one section, recording the load average around it; a failure becomes a row."""
    section = Section(name, before=_load())
    started = time.perf_counter()
    try:
        section.lines = make()
    except Exception as error:  # noqa: BLE001 - one failed section must not lose the others
        traceback.print_exc()
        said = " ".join(f"{type(error).__name__}: {error}".split())
        section.lines = [(f"{name}: FAILED", said, "", "MISSED")]
        section.failed = True
    section.seconds = time.perf_counter() - started
    section.after = _load()
    section.print()
    return section
