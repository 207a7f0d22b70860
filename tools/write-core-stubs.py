"""Writes python/idlewise/_core.pyi from the compiled module's own signatures: run after a binding
changes (`python tools/write-core-stubs.py`); tests/test_face.py checks the stub names every name."""
import idlewise._core as c
lines = ['"""Type stubs of the compiled engine (idlewise._core, PyO3 bindings of idlewise-core): what a',
         'type checker and an editor see. Written from the module\'s own signatures; its values are',
         'NumPy arrays, dicts and the classes below."""', '', 'from typing import Any', '', '__version__: str']
errors = ['', '', 'class IdlewiseError(ValueError): ...', '', '', 'class TraceRecordError(IdlewiseError): ...', '', '']
LITERAL = set("0123456789-\"")


def params(sig):
    out = []
    for p in [p.strip() for p in sig.strip("()").split(",") if p.strip()]:
        if p.startswith("$"):
            continue
        if p in ("*", "/"):  # keyword-only and positional-only markers stand as they are
            out.append(p)
            continue
        if "=" in p:
            name, default = p.split("=", 1)
            keep = default in ("None", "True", "False") or default[0] in LITERAL
            out.append(f"{name}: Any = {default if keep else '...'}")
        else:
            out.append(f"{p}: Any")
    return ", ".join(out)


constants, classes, functions = [], [], []
for n in sorted(dir(c)):
    if n.startswith("_") or n in ("IdlewiseError", "TraceRecordError"):
        continue
    o = getattr(c, n)
    if isinstance(o, (int, float, str)):  # the engine's constants, by their type
        constants.append(f"{n}: {type(o).__name__}")
    elif isinstance(o, type):
        sig = getattr(o, "__text_signature__", None) or "()"
        members = [m for m in dir(o) if not m.startswith("_")]
        ps = params(sig)
        body = [f"    def __init__(self, {ps}) -> None: ..." if ps else "    def __init__(self) -> None: ..."]
        for m in members:
            attr = getattr(o, m, None)
            raw = o.__dict__.get(m)
            if isinstance(raw, (staticmethod, classmethod)):
                msig = getattr(attr, "__text_signature__", None) or "()"
                kind = "staticmethod" if isinstance(raw, staticmethod) else "classmethod"
                first = "" if kind == "staticmethod" else "cls, "
                body.append(f"    @{kind}")
                body.append(f"    def {m}({first}{params(msig.replace('$cls', ''))}) -> Any: ...")
            elif callable(attr):
                msig = getattr(attr, "__text_signature__", None) or "($self)"
                mp = params(msig.replace("$self", ""))
                body.append(f"    def {m}(self{', ' + mp if mp else ''}) -> Any: ...")
            else:
                body.append(f"    {m}: Any")
        for dunder in ("__iter__", "__next__", "__len__"):
            if dunder in o.__dict__:
                body.append(f"    def {dunder}(self) -> Any: ...")
        classes += [f"class {n}:"] + body + ["", ""]
    else:
        sig = getattr(o, "__text_signature__", None) or "()"
        functions.append(f"def {n}({params(sig)}) -> Any: ...")
open("python/idlewise/_core.pyi", "w").write("\n".join(lines + constants + errors + classes + functions) + "\n")
