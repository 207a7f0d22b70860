"""Your own power-management policy, written in Python, run by the engine beside the built-ins.

Subclass :class:`Policy` and define ``plan``; define the other hooks only if the policy needs
them (a hook it does not define is never called, so a ``plan``-only policy costs one call an idle
period)::

    import idlewise

    class Halfway(idlewise.Policy):
        '''Sleeps after half the last idle period (at least a second).'''

        def __init__(self, least_s=1.0):
            self.least_s, self.last_s = least_s, 0.0

        def plan(self, now_s):
            return [(max(self.least_s, self.last_s / 2), "standby")]

        def idle_ended(self, idle_s):
            self.last_s = idle_s

    idlewise.simulate(trace, "hitachi-travelstar-5k320", [Halfway(least_s=2), "timeout:2s"])

The row's ``policy`` is the policy's :attr:`Policy.name` (``halfway:least_s=2``), its ``family``
the class's :attr:`Policy.family`. From the command line, ``--policy
python:FILE.py:Class:key=value,...`` loads the class from the file (values are read as numbers,
durations such as ``2s``, powers such as ``1.2W``, or text). ``docs/policies.md`` has the contract.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import inspect
import math
import os
import re
import sys

from . import _core
from .errors import IdlewiseError

#: A request as :meth:`Policy.observe` sees it: ``index``, ``time_s``, ``size_bytes``,
#: ``is_write``, ``idle_s`` (the idle period it ended; 0 if it queued) and ``woke`` (it found the
#: device in a low-power mode and woke it).
Request = _core.Request
#: Raised when a policy's own code fails; its ``__cause__`` is the policy's exception.
PolicyError = _core.PolicyError

_HOOKS = ("start", "observe", "idle_ended", "hint")


class Policy:
    """A power-management policy written in Python.

    The engine makes a fresh copy of the instance for every run (every device of a trace, every
    replay), calls :meth:`start` with the device once, then :meth:`plan` each time the device
    falls idle. Parameters are the constructor's arguments: they name the policy's rows.

    Class attributes
    ----------------
    family : str
        The rows' ``family`` (default: the class name in kebab-case, ``MyPolicy`` ->
        ``my-policy``); it must not be a built-in family's name.
    offline : bool
        True for an offline policy (one that knows the future, as the oracle does): ``plan`` is
        then called as ``plan(now_s, gap_s)`` with the idle period's length. It cannot run live
        or on a hybrid disk.
    """

    family: str | None = None
    offline: bool = False

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        try:
            bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        except TypeError:
            bound = None  # __init__ says what is wrong when it runs
        given = dict(list(bound.arguments.items())[1:]) if bound is not None else dict(kwargs)
        for name, value in list(given.items()):
            kind = inspect.signature(cls.__init__).parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                given.pop(name)
                given.update(value)
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                given.pop(name)
                given.update({f"arg{i}": v for i, v in enumerate(value)})
        object.__setattr__(self, "_idlewise_params", given)
        return self

    # --- the hooks --------------------------------------------------------------------------

    def start(self, device) -> None:
        """Called once per run, before any request, with the :class:`idlewise.Device` (its
        ``modes``, ``transitions``, ``ready_mode``, ``deepest_mode``, ``route(a, b)``,
        ``break_even_s(mode)``, ``best_mode_for_gap(gap_s)``)."""

    def plan(self, now_s: float):
        """The device fell idle at ``now_s``: its plan for the idle period, a sequence of
        ``(idle_s, mode)`` steps in order of ``idle_s`` (after ``idle_s`` seconds of idleness go
        to ``mode``, by the device's mode names); empty (or None) to stay ready. The next request
        wakes the device by its route back to ready."""
        raise NotImplementedError(f"{type(self).__name__} must define plan(self, now_s)")

    def observe(self, request) -> None:
        """Each request as it arrives, once the device is ready to serve it (:data:`Request`)."""

    def idle_ended(self, idle_s: float) -> None:
        """The idle period planned last ended after ``idle_s`` seconds (a request came)."""

    def hint(self, now_s: float, mode: str, benefit: float) -> bool:
        """A ghost hint (seed 000): an application would have used the device, resting in
        ``mode``, and would have saved ``benefit`` had it been ready. True wakes it now."""
        return False

    # --- its name ---------------------------------------------------------------------------

    @property
    def params(self) -> dict:
        """The constructor's arguments, by name, as given."""
        return dict(getattr(self, "_idlewise_params", {}))

    @property
    def name(self) -> str:
        """The rows' ``policy``: the family, then the parameters given (``halfway:least_s=2``)."""
        params = ",".join(f"{k}={_shown(v)}" for k, v in self.params.items())
        return family_of(type(self)) + (f":{params}" if params else "")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} policy {self.name}>"


def family_of(cls) -> str:
    """A policy class's family: its ``family`` attribute, else its name in kebab-case."""
    if getattr(cls, "family", None):
        return str(cls.family)
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", cls.__name__).lower()


def _shown(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _defines(cls, hook: str) -> bool:
    return getattr(cls, hook, None) is not getattr(Policy, hook)


def engine_policy(policy: Policy, device) -> "_core.PythonPolicy":
    """What the engine runs for ``policy`` on ``device``: a fresh copy of the instance as it is
    now for every run, started on the device."""
    if not isinstance(policy, Policy):
        raise IdlewiseError(f"a policy written in Python subclasses idlewise.Policy, got {type(policy).__name__}")
    cls = type(policy)
    if not _defines(cls, "plan"):
        raise IdlewiseError(f"policy class {cls.__name__} must define plan(self, now_s)")
    prototype = copy.deepcopy(policy)
    starts = _defines(cls, "start")

    def fresh():
        made = copy.deepcopy(prototype)
        if starts:
            made.start(device)
        return made

    name = policy.name
    if not isinstance(name, str) or not name.strip():
        raise IdlewiseError(f"policy class {cls.__name__}: name must be a non-empty string, got {name!r}")
    return _core.PythonPolicy(fresh, name, family_of(cls), observe=_defines(cls, "observe"),
                              idle_ended=_defines(cls, "idle_ended"), hint=_defines(cls, "hint"), offline=bool(cls.offline))


# --- python:FILE.py:Class:key=value --------------------------------------------------------------

_SPEC = re.compile(r"python:(?P<file>.+?\.py):(?P<cls>[A-Za-z_][A-Za-z0-9_]*)(?::(?P<params>.*))?", re.S)
_MODULES: dict = {}


def is_python_spec(spec) -> bool:
    return isinstance(spec, str) and spec.strip().startswith("python:")


def load_spec(spec: str) -> Policy:
    """The policy a ``python:FILE.py:Class:key=value,...`` spec names, made with those
    parameters."""
    text = spec.strip()
    match = _SPEC.fullmatch(text)
    if not match:
        raise IdlewiseError(f"policy '{spec}': a Python policy is given as python:FILE.py:Class or "
                            "python:FILE.py:Class:key=value,... (a class of idlewise.Policy in FILE.py)")
    cls = load_class(match.group("file"), match.group("cls"), spec)
    params = {}
    for item in filter(None, (p.strip() for p in (match.group("params") or "").split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise IdlewiseError(f"policy '{spec}': parameter '{item}' must be key=value")
        if key.strip() in params:
            raise IdlewiseError(f"policy '{spec}': parameter '{key.strip()}' is given twice")
        params[key.strip()] = parse_value(value.strip())
    try:
        return cls(**params)
    except Exception as e:  # the class's own refusal, in its words
        raise IdlewiseError(f"policy '{spec}': {cls.__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())}) "
                            f"failed: {type(e).__name__}: {e}") from e


def load_class(path: str, name: str, spec: str = ""):
    """Class ``name`` of the Python file at ``path`` (loaded once per version of the file)."""
    where = os.path.abspath(os.path.expanduser(path))
    try:
        stat = os.stat(where)
    except OSError as e:
        raise IdlewiseError(f"policy '{spec or path}': cannot read {path}: {e.strerror}") from None
    key = (where, stat.st_mtime_ns, stat.st_size)
    module = _MODULES.get(key)
    if module is None:
        digest = hashlib.sha1(where.encode()).hexdigest()[:10]
        module_name = f"idlewise_policy_{re.sub(r'[^A-Za-z0-9_]', '_', os.path.splitext(os.path.basename(where))[0])}_{digest}"
        loader_spec = importlib.util.spec_from_file_location(module_name, where)
        if loader_spec is None or loader_spec.loader is None:
            raise IdlewiseError(f"policy '{spec or path}': {path} is not a Python file")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module  # so its instances pickle (a sweep's processes, Dask)
        try:
            loader_spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(module_name, None)
            raise IdlewiseError(f"policy '{spec or path}': loading {path} failed: {type(e).__name__}: {e}") from e
        _MODULES[key] = module
    cls = getattr(module, name, None)
    if cls is None:
        found = sorted(n for n, v in vars(module).items() if isinstance(v, type) and issubclass(v, Policy) and v is not Policy)
        raise IdlewiseError(f"policy '{spec or path}': {path} has no class {name}"
                            + (f"; its policies: {', '.join(found)}" if found else "; it defines no subclass of idlewise.Policy"))
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise IdlewiseError(f"policy '{spec or path}': {name} in {path} is not a subclass of idlewise.Policy")
    return cls


def parse_value(text: str):
    """A parameter's value from the command line: an integer, a number, a duration in seconds
    (``2s``, ``10min``), a power in watts (``1.2W``), true/false, or the text itself."""
    if re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    try:
        value = float(text)
        if math.isfinite(value):
            return value
    except ValueError:
        pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for parse in (_core.parse_duration_s, _core.parse_power_w):
        try:
            return parse(text)
        except (ValueError, IdlewiseError):
            continue
    return text


# --- what the faces hand the engine ----------------------------------------------------------------

def parsed(policy):
    """A built-in's spec parsed by the engine, once (``_core.ParsedPolicy``: every run of it takes
    the parsed spec); any other policy as it is (a ``python:`` spec is loaded where it runs)."""
    return _core.ParsedPolicy(policy) if isinstance(policy, str) and not is_python_spec(policy) else policy


def resolved(policies) -> list:
    """Each policy of a list as the engine takes it: a built-in's spec (parsed, :func:`parsed`), a
    Python policy (an :class:`Policy` instance, from a ``python:`` spec too), or an engine handle
    already made."""
    out = []
    for p in policies:
        if is_python_spec(p):
            out.append(load_spec(p))
        elif isinstance(p, str):
            out.append(parsed(p))
        elif isinstance(p, (Policy, _core.PythonPolicy, _core.ParsedPolicy)):
            out.append(p)
        else:
            raise IdlewiseError(f"a policy is a spec such as 'timeout:2s', 'python:FILE.py:Class', or an idlewise.Policy; "
                                f"got {type(p).__name__}")
    return out


def for_engine(policy, device):
    """A resolved policy as the engine takes it on ``device``."""
    return engine_policy(policy, device) if isinstance(policy, Policy) else policy


def label(policy) -> str:
    """The rows' ``policy`` of a policy however given."""
    return policy if isinstance(policy, str) else policy.name


__all__ = ["Policy", "PolicyError", "Request", "engine_policy", "family_of", "for_engine", "is_python_spec", "label",
           "load_class", "load_spec", "parse_value", "parsed", "resolved"]
