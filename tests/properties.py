"""The settings of every Hypothesis property test in the suite, in one place.

A plain run (CI, the README's command) draws the same cases every time: the committed cases
first (``tests/hypothesis-regressions``, read only), then a stream from a fixed seed, so a
landing never hinges on luck. ``tools/deep-check`` sets ``IDLEWISE_PROPERTY_SCALE`` (at least
10) and ``IDLEWISE_DEEP_CHECK=1``: every test then draws that many times its cases from a fresh
seed, and whatever fails is saved in ``tests/hypothesis-regressions`` to be committed, so every
later run replays it. (The Rust property tests do the same through
``idlewise_core::testing`` and proptest's ``*.proptest-regressions`` files.)

Hypothesis keys a saved case by its test's source: a case outlives its test only until the test
is edited, and the saved format is Hypothesis's own (a case saved by one Hypothesis may be
skipped by another).
"""

import os
from pathlib import Path

from hypothesis import seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ReadOnlyDatabase

#: Where failing cases found by the deep check are kept (committed).
REGRESSIONS = Path(__file__).resolve().parent / "hypothesis-regressions"

#: The seed a plain run draws from.
FIXED_SEED = 0x1D1E_3715_E000_0060


def _scale() -> int:
    text = os.environ.get("IDLEWISE_PROPERTY_SCALE", "1")
    try:
        scale = int(text)
    except ValueError:
        scale = 0
    if scale < 1:
        raise ValueError(f"IDLEWISE_PROPERTY_SCALE must be a positive whole number, got {text!r}")
    return scale


SCALE = _scale()
DEEP = os.environ.get("IDLEWISE_DEEP_CHECK") == "1"


def property_test(max_examples: int, **options):
    """Hypothesis settings for a property test drawing ``max_examples`` cases in a plain run
    (scaled in the deep check); ``options`` are further settings (``suppress_health_check``)."""
    database = DirectoryBasedExampleDatabase(str(REGRESSIONS))
    chosen = settings(
        max_examples=max_examples * SCALE,
        deadline=None,
        database=database if DEEP else ReadOnlyDatabase(database),
        print_blob=True,
        **options,
    )

    def decorate(test):
        test = chosen(test)
        return test if DEEP else seed(FIXED_SEED)(test)

    return decorate


def tally(item) -> None:
    """Appends the cases a property test that just passed asked for to the file
    ``IDLEWISE_PROPERTY_TALLY`` names (the deep check adds them up for its report)."""
    path = os.environ.get("IDLEWISE_PROPERTY_TALLY")
    chosen = getattr(getattr(item, "obj", None), "_hypothesis_internal_use_settings", None)
    if path and chosen is not None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"python {chosen.max_examples}\n")
