"""Compile the engine's :mod:`~webapp.engine.tree_kernel` ahead of time
into the shared library that :mod:`webapp.native` loads with ctypes,
without numpy or numba.

    python -m webapp.native.build          # builds webapp/native/tree.so (make does)

numba compiles the kernel's entry as a C function (``cfunc``); llvmlite turns
its LLVM code into an object file for this machine's processor, and the
system linker (``ld``, from binutils) makes the library. The entry's error
path names a few helpers of numba's runtime that a kernel raising nothing
never calls; a small module defines them (each aborts), so the library
loads on its own (the Python C API it names comes from the interpreter
that loads it). Beside it goes ``built.py``: what the library was built
from (its sources' sizes and times, the processor) and what it plays (the
entry's arguments, the strategies with their switches, read from the
engine's registry). The command line plays through the engine instead
when the library is missing or either of those differs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TARGET = Path(__file__).resolve().parent
# The entry's arguments in order: "i" a 64-bit integer, else a pointer to
# 64-bit integers ("pi"), 32-bit ones ("p32"), unsigned ("pu") or floats ("pf").
ARGUMENTS = [
    *("i", "i", "i", "i", "i", "i", "i"),  # mode, pegs, colors, distinct, distinct_guesses, strategy, fresh
    *("pi", "pu", "p32", "pf"),  # flags, the board (bu, bi, bf)
    *("p32", "pu", "pf", "p32"),  # one thread's work (wi, wu, wf), order
    *("i", "i", "i", "i", "i"),  # start, n, depth, played, stop_depth
    *("pi", "pi", "i"),  # tasks, depth_of, n_allowed
]


def signature() -> Any:
    """The entry's numba signature, from :data:`ARGUMENTS`."""
    from numba import types

    pointer: Any = types.CPointer  # numba's types carry no annotations
    kinds = {
        "i": types.int64,
        "pi": pointer(types.int64),
        "p32": pointer(types.int32),
        "pu": pointer(types.uint64),
        "pf": pointer(types.float64),
    }
    return types.int64(*(kinds[k] for k in ARGUMENTS))


def stubs_for(module: Any) -> str:
    """LLVM code defining each of numba's runtime helpers that ``module``
    names (its error path, never taken): each aborts."""
    names = sorted(fn.name for fn in module.functions if fn.is_declaration and fn.name.startswith(("numba_", "NRT_")))
    lines = ["declare void @abort()"]
    lines += [f'define void @"{name}"() {{ call void @abort() unreachable }}' for name in names]
    return "\n".join(lines) + "\n"


def strategy_table() -> dict[str, dict[str, Any]]:
    """The strategies the kernel plays, with the switches :func:`~webapp.engine.tree_kernel.entry` reads."""
    from ..engine import tree_kernel
    from ..engine.strategies import get_strategy

    table = {}
    for name, number in tree_kernel.STRATEGY_IDS.items():
        s = get_strategy(name)
        table[name] = {
            "id": number,
            "flags": [
                int(s.prefer_candidates),
                s.first_candidate_at,
                int(s.perfect_split_wins),
                int(s.candidates_only),
                int(s.first_of_two),
            ],
        }
    return table


def build(target: Path = TARGET) -> Path:
    """Compile the library into ``target``; returns its path. ``built.py``
    is written last (``make``'s target): an interrupted build leaves none,
    and the command line uses no library until the next build."""
    import llvmlite.binding as llvm
    from numba import cfunc

    from ..engine import tree_kernel
    from ..engine.strategies import DEFAULT_STRATEGY
    from . import processor, sources_stamp

    sources = sources_stamp()  # before compiling: a source edited meanwhile makes the build stale
    (target / "built.py").unlink(missing_ok=True)
    compile_c: Any = cfunc  # numba's decorators carry no annotations for their options
    compiled = compile_c(signature(), nopython=True, error_model="numpy")(tree_kernel.entry)
    module = llvm.parse_assembly(compiled._library.get_llvm_str())
    module.get_function(compiled.native_name).name = "mastermind_tree"
    stubs = llvm.parse_assembly(stubs_for(module))
    stubs.triple, stubs.data_layout = module.triple, module.data_layout
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3, reloc="pic"
    )
    # Made beside the target and renamed into place: a process that has the
    # old library loaded keeps its file. No -lm: the interpreter that loads
    # the library has the C maths library already.
    with tempfile.TemporaryDirectory(dir=target) as work:
        objects = []
        for name, part in (("tree", module), ("stubs", stubs)):
            path = Path(work) / f"{name}.o"
            path.write_bytes(machine.emit_object(part))
            objects.append(str(path))
        library = Path(work) / "tree.so"
        subprocess.run([shutil.which("ld") or "ld", "-shared", "-o", str(library), *objects], check=True)
        os.replace(library, target / "tree.so")
        about = Path(work) / "built.py"
        about.write_text(
            f"""# Made by `python -m webapp.native.build` with tree.so beside it: remake both with it.
SOURCES = {sources!r}
PROCESSOR = {processor()!r}
ARGUMENTS = {ARGUMENTS!r}
CODES = {tree_kernel.NATIVE_CODES!r}
COLORS = {tree_kernel.MOST_COLORS!r}
STRATEGIES = {strategy_table()!r}
DEFAULT_STRATEGY = {DEFAULT_STRATEGY!r}
"""
        )
        os.replace(about, target / "built.py")
    return target / "tree.so"


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET))
