"""Take the network away from a process of ours: defence in depth behind the SPARQL guard.

``atlas serve`` calls :func:`forbid_network` in each query worker and ``atlas sparql`` in its own
process before the query runs, so even a query that fooled the parser guard could not open a
connection. The means is a seccomp filter (Linux 3.5 and later, no root needed): from then on,
``socket()`` fails with ``EACCES`` for every address family but ``AF_UNIX``, and io_uring (which
can open sockets without that call) cannot be set up. The filter covers every thread of the
process and everything it starts; it cannot be lifted.

Elsewhere (macOS, Windows, Linux on other processors than x86-64 and AArch64, or a kernel that
refuses seccomp) :func:`forbid_network` changes nothing and says so; the parser guard then stands
alone. The in-process :func:`atlas.sparql` never calls it: a library must not sandbox its host.
"""

from __future__ import annotations

import ctypes
import platform
import socket
import struct
import sys
from typing import NamedTuple

__all__ = ["forbid_network"]

_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1  # every thread of the process, not only the caller
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EACCES = 13
_X32_BIT = 0x40000000  # x86-64's x32 system calls carry this bit: refused as a whole
# classic BPF: load a word at an absolute offset, jump if equal / greater or equal, return
_LD_W_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
# offsets in struct seccomp_data: nr (int), arch (u32), instruction pointer (u64), args (u64[6])
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


class _Machine(NamedTuple):
    """What the filter needs of one processor: its audit tag and three system call numbers."""

    arch: int
    socket_nr: int
    seccomp_nr: int
    uring_nr: int


_MACHINES = {
    "x86_64": _Machine(0xC000003E, 41, 317, 425),
    "aarch64": _Machine(0xC00000B7, 198, 277, 425),
}


def _instruction(code: int, true: int, false: int, k: int) -> bytes:
    return struct.pack("HBBI", code, true, false, k)


def _program(machine: _Machine) -> list[bytes]:
    """The filter: other ABIs and io_uring refused, ``socket()`` only for ``AF_UNIX``."""
    deny = _RET_ERRNO | _EACCES
    return [
        _instruction(_LD_W_ABS, 0, 0, _ARCH),
        _instruction(_JEQ, 1, 0, machine.arch),
        _instruction(_RET, 0, 0, deny),  # a 32-bit or foreign system call
        _instruction(_LD_W_ABS, 0, 0, _NR),
        _instruction(_JGE, 5, 0, _X32_BIT),  # -> deny
        _instruction(_JEQ, 4, 0, machine.uring_nr),  # -> deny
        _instruction(_JEQ, 1, 0, machine.socket_nr),  # -> the family
        _instruction(_RET, 0, 0, _RET_ALLOW),
        _instruction(_LD_W_ABS, 0, 0, _ARG0_LOW),  # the address family
        _instruction(_JEQ, 1, 0, socket.AF_UNIX),
        _instruction(_RET, 0, 0, deny),
        _instruction(_RET, 0, 0, _RET_ALLOW),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def forbid_network() -> bool:
    """Forbid this process (all its threads, and what it starts) to open network sockets.

    Returns ``True`` when the filter is in place, ``False`` where this system offers none.
    Calling it again adds nothing and costs nothing that matters.
    """
    machine = _MACHINES.get(platform.machine())
    if not sys.platform.startswith("linux") or machine is None:
        return False
    program = _program(machine)
    code = ctypes.create_string_buffer(b"".join(program))
    fprog = _SockFprog(len(program), ctypes.cast(code, ctypes.c_void_p))
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        libc.syscall.restype = ctypes.c_long
        done = libc.syscall(
            ctypes.c_long(machine.seccomp_nr),
            ctypes.c_ulong(_SECCOMP_SET_MODE_FILTER),
            ctypes.c_ulong(_SECCOMP_FILTER_FLAG_TSYNC),
            ctypes.byref(fprog),
        )
    except (OSError, AttributeError):
        return False
    return bool(done == 0)
