"""What a test reads from idlewise's stderr, whatever width its lines were wrapped at.

``idlewise: ...`` lines wrap at spaces to the terminal (``cli._common.say``), continuations
indented by two spaces; a test asks for a message whole.
"""


def messages(err: str) -> list[str]:
    """Every ``idlewise: ...`` message of ``err``, its wrapped continuation lines joined back."""
    found: list[str] = []
    for line in err.rstrip().splitlines():
        if line.startswith("idlewise: "):
            found.append(line)
        elif found and line.startswith("  ") and not line.startswith("   "):
            found[-1] += " " + line.strip()
    return found


def last_message(err: str) -> str:
    """The last ``idlewise: ...`` message of ``err``, whole (the line itself when there is none)."""
    found = messages(err)
    lines = err.strip().splitlines()
    if not found:
        return lines[-1] if lines else ""
    return found[-1]
