r"""Parsers of what torch.compile says about each graph: its graph breaks and its kernels.

Like ``parse.py`` (the other half of the witness's parsers of private text formats), each
pattern here is tested on text recorded from real runs: Dynamo's ``graph_breaks`` log messages
and Inductor's output modules, whose ``# ... Original ATen: [...]`` comments name the aten
operators behind each kernel call.

>>> fused_ops("cpp_fused_gelu_native_layer_norm_0", {"gelu", "native_layer_norm", "addmm"})
('gelu', 'native_layer_norm')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from atlas._witness import parse

__all__ = [
    "BreakReport",
    "KernelUse",
    "break_reports",
    "fused_ops",
    "kernel_uses",
    "library_calls",
    "user_path",
]

_AT = re.compile(r"^Graph break (?:\(.*?\) )?in user code at (?P<where>.+):(?P<line>\d+)\s*$")
_REASON = "Graph Break Reason:"
_TRACEBACK = "User code traceback:"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\s*$')
_ORIGIN = re.compile(r"#.*Original ATen: \[(?P<ops>[^\]]*)\]")
_CALL = re.compile(
    r"^\s*(?:\w+\s*=\s*)?(?P<callee>(?:extern_kernels|torch\.ops\.aten)\.[\w.]+|\w+(?:\.run)?)\("
)
_ENCOUNTERED = "Encountered graph break"


@dataclass(frozen=True)
class BreakReport:
    """One graph break as Dynamo's log reports it."""

    reason: str  # the telling line, e.g. 'Unsupported Tensor.item() call with ...'
    location: str | None  # 'path:line' of the user code
    function: str | None  # the function the break is in
    code: str | None  # the source line at the break
    explanation: str | None
    hint: str | None


def user_path(path: str) -> str:
    """A path of user code as a reader needs it: inside a package from the package on.

    >>> user_path("/usr/lib/python3/site-packages/mypkg/model.py")
    'mypkg/model.py'
    >>> user_path("/work/main/src/atlas/_witness/_tiny_model.py")
    'atlas/_witness/_tiny_model.py'
    >>> user_path("/home/me/tests/witness_models.py")
    'tests/witness_models.py'
    """
    parts = path.replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages", "src"):
        if marker in parts[:-1]:
            return "/".join(parts[len(parts) - parts[::-1].index(marker) :])
    return "/".join(parts[-2:]) if len(parts) > 1 else path


def _reason_lines(lines: Sequence[str]) -> list[str]:
    """The lines of the reason block (from 'Graph Break Reason:' to the traceback)."""
    block: list[str] = []
    inside = False
    for line in lines:
        if line.startswith(_REASON):
            inside = True
            line = line[len(_REASON) :]  # noqa: PLW2901 - the rest of the same line
        elif line.startswith(_TRACEBACK):
            break
        if inside:
            block.append(line.strip())
    return block


def _field(block: Sequence[str], name: str) -> str | None:
    for line in block:
        if line.startswith(name + ":"):
            return line[len(name) + 1 :].strip() or None
    return None


def _report(message: str) -> BreakReport | None:
    lines = message.splitlines()
    if not lines or not (at := _AT.match(lines[0].strip())):
        return None
    block = _reason_lines(lines)
    telling = [
        line
        for line in block
        if line and not line.startswith(_ENCOUNTERED) and ":" not in line.split(" ", 1)[0]
    ]
    reason = telling[0] if telling else next((line for line in block if line), "")
    frames = [m for line in lines if (m := _FRAME.match(line))]
    function = code = None
    if frames:
        last = frames[-1]
        function = last["fn"]
        index = lines.index(last.string)
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        code = following if following and not following.startswith(("File ", "^")) else None
    return BreakReport(
        reason=reason or "(no reason given)",
        location=f"{user_path(at['where'])}:{at['line']}",
        function=function,
        code=code,
        explanation=_field(block, "Explanation"),
        hint=_field(block, "Hint"),
    )


def break_reports(messages: Iterable[str]) -> tuple[tuple[BreakReport, int], ...]:
    """Each distinct graph break of the log, with how many times it was logged."""
    counts: dict[BreakReport, int] = {}
    for message in messages:
        report = _report(message)
        if report is not None:
            counts[report] = counts.get(report, 0) + 1
    return tuple(counts.items())


def fused_ops(name: str, known: Iterable[str]) -> tuple[str, ...]:
    """The operators a kernel's name joins (``cpp_fused_gelu_native_layer_norm_0``).

    Split by the ``known`` operator names (longest first); ``()`` when the name does not split
    into them.

    >>> fused_ops("triton_poi_fused_relu_0", {"relu"})
    ('relu',)
    >>> fused_ops("cpp_fused_mystery_0", {"relu"})
    ()
    """
    core = re.sub(r"^(?:cpp|triton_\w+?)_fused_", "", name)
    core = re.sub(r"_\d+$", "", core)
    words = sorted(set(known), key=len, reverse=True)
    found: list[str] = []
    while core:
        match = next((w for w in words if core == w or core.startswith(w + "_")), None)
        if match is None:
            return ()
        found.append(match)
        core = core[len(match) + 1 :]
    return tuple(found)


@dataclass(frozen=True)
class KernelUse:
    """A call in an output module's ``call()``, with the aten operators behind it."""

    callee: str  # a generated kernel, 'extern_kernels.mm' or 'torch.ops.aten.x.default'
    origins: tuple[str, ...]  # from the 'Original ATen' comment above it


def kernel_uses(code: str) -> tuple[KernelUse, ...]:
    """Each kernel or library call of the module's ``call()``, with its ``Original ATen``."""
    generated = {k.name for k in (*parse.cpp_kernels(code), *parse.triton_kernels(code))}
    uses: list[KernelUse] = []
    origins: tuple[str, ...] = ()
    for line in code.splitlines():
        if comment := _ORIGIN.search(line):
            origins = tuple(o.strip() for o in comment["ops"].split(",") if o.strip())
            continue
        call = _CALL.match(line)
        if call is None:
            continue
        callee = call["callee"].removesuffix(".run")
        if callee in generated or callee.startswith(("extern_kernels.", "torch.ops.aten.")):
            uses.append(KernelUse(callee, origins))
            origins = ()  # a comment names the operators of the one call under it
    return tuple(uses)


def library_calls(code: str) -> tuple[KernelUse, ...]:
    """The calls the module leaves to ATen or vendor libraries (``extern_kernels``, aten ops)."""
    return tuple(u for u in kernel_uses(code) if "." in u.callee)
