"""What the manager makes on the file system, made so that it harms nothing it did not make.

It runs as root, so every path it is given could be a trap another user set: a log named where a
symbolic link points at ``/etc/shadow``, a socket path that is an administrator's file, a socket
planted in ``/tmp`` that answers in the manager's place. The rules, one home each:

- the **socket** lives in a directory only its user can write (root: ``/run/idlewise``; a user:
  ``$XDG_RUNTIME_DIR/idlewise``, else a ``0700`` directory of its own under the temporary
  directory, refused if someone else made it); it is created ``0600``; what is at its path before
  is removed only if it is a socket of the same user that no manager answers on, and anything else
  (a file, a link, another user's socket) is refused, never replaced; at the end it is removed only
  if it is still the one made (same device and inode);
- the **log** is opened without following a link (``O_NOFOLLOW``), must be a regular file of the
  manager's user with one link (no hard link into a file of another), is appended to, and
  truncated (``manage replay --log``) only once those checks passed;
- **peers** on the socket are checked (``SO_PEERCRED``): root and the manager's own user only; a
  client checks the manager the same way before it believes an answer.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
import tempfile

from ..errors import IdlewiseError

#: Root's runtime directory (systemd's ``RuntimeDirectory=idlewise`` makes the same).
ROOT_RUNTIME_DIR = "/run/idlewise"
SOCKET_NAME = "manage.sock"


def runtime_dir(create: bool = False) -> str:
    """Where the socket lives by default (see the module's doc); with ``create`` it is made
    (and checked) if missing."""
    if os.geteuid() == 0:
        path, private = ROOT_RUNTIME_DIR, False
    elif os.environ.get("XDG_RUNTIME_DIR"):
        path, private = os.path.join(os.environ["XDG_RUNTIME_DIR"], "idlewise"), True
    else:
        path, private = os.path.join(tempfile.gettempdir(), f"idlewise-{os.geteuid()}"), True
    if create:
        try:
            os.mkdir(path, 0o700 if private else 0o755)
        except FileExistsError:
            pass
        except OSError as e:
            raise IdlewiseError(f"{path}: cannot make the manager's directory: {e.strerror or e}") from None
    if create or os.path.lexists(path):
        check_own_dir(path, private=private)
    return path


def default_socket(create: bool = False) -> str:
    """The socket's default path (``/run/idlewise/manage.sock`` for root)."""
    return os.path.join(runtime_dir(create), SOCKET_NAME)


def check_own_dir(path: str, *, private: bool) -> None:
    """Refuses a directory that is not a real directory of this user (or root's) and, where
    ``private``, one that others can enter."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise IdlewiseError(f"{path}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise IdlewiseError(f"{path}: not a directory (a link or a file is there): the manager makes its own and "
                            "follows nothing it did not make; remove it, or pass --socket")
    if st.st_uid not in (os.geteuid(), 0):
        raise IdlewiseError(f"{path}: belongs to user {st.st_uid}, not to this one: someone else made it; remove it, "
                            "or pass --socket")
    if private and st.st_mode & 0o077:
        raise IdlewiseError(f"{path}: others may enter it (mode {stat.S_IMODE(st.st_mode):o}); the manager's directory "
                            "is 0700: chmod 700 it, or remove it")


def check_parent(path: str) -> None:
    """Refuses a socket or file whose directory others can write without the sticky bit (where
    anyone could swap what is there between the checks and the use)."""
    parent = os.path.dirname(os.path.abspath(path)) or "."
    try:
        st = os.stat(parent)
    except OSError as e:
        raise IdlewiseError(f"{parent}: {e.strerror or e}") from None
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        raise IdlewiseError(f"{path}: its directory {parent} is writable by anyone and not sticky; put it elsewhere")


def open_log(path: str, *, truncate: bool = False):
    """The log file at ``path`` for writing, made ``0640`` if missing: appended to, or truncated
    with ``truncate`` (a replay's log), only if it is a regular file of this user with one link
    and ``path`` is not a link. Returns a text file (line-buffered)."""
    check_parent(path)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | os.O_NOCTTY
    if not truncate:
        flags |= os.O_APPEND
    try:
        fd = os.open(path, flags | os.O_NONBLOCK, 0o640)  # (a FIFO planted there does not block the open)
    except OSError as e:
        import errno

        if e.errno == errno.ELOOP:
            raise IdlewiseError(f"{path}: a symbolic link: the log is never written through a link; name the file itself") from None
        if e.errno in (errno.ENXIO, errno.ENODEV):  # a FIFO without a reader, a device without its driver
            raise IdlewiseError(f"{path}: not a regular file: the log is never written into a device, a pipe or a socket") from None
        raise IdlewiseError(f"{path}: cannot open the log: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IdlewiseError(f"{path}: not a regular file: the log is never written into a device, a pipe or a socket")
        if st.st_uid != os.geteuid():
            raise IdlewiseError(f"{path}: belongs to user {st.st_uid}: the manager writes only a log of its own user")
        if st.st_nlink != 1:
            raise IdlewiseError(f"{path}: has {st.st_nlink} links: a hard link could point the log into another file")
        os.set_blocking(fd, True)
        if truncate:
            os.ftruncate(fd, 0)
        return os.fdopen(fd, "w", encoding="utf-8", buffering=1)
    except BaseException:
        os.close(fd)
        raise


def same_file(path: str, opened) -> bool:
    """Whether ``path`` still names the file ``opened`` (a log rotated by renaming does not)."""
    try:
        here, there = os.lstat(path), os.fstat(opened.fileno())
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def peer_uid(conn: socket.socket) -> int:
    """The user at the other end of a Unix socket (``SO_PEERCRED``: pid, uid, gid)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def trusted(uid: int) -> bool:
    """Root and the manager's own user."""
    return uid in (0, os.geteuid())


#: The longest path a Unix socket can have (``sizeof(sun_path)`` less its terminating zero).
MAX_SOCKET_PATH_BYTES = 107


class OwnSocket:
    """The listening socket, made as the module's doc says; :meth:`remove` removes it only if
    the path still names it."""

    def __init__(self, path: str):
        self.path = path
        # The kernel keeps a Unix socket's path in 108 bytes, its end included: a longer one
        # is refused here, by name, rather than by bind's "path too long".
        if len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES:
            raise IdlewiseError(f"{path}: a Unix socket's path may be at most {MAX_SOCKET_PATH_BYTES} bytes, this one has "
                                f"{len(os.fsencode(path))}: pass --socket with a shorter path")
        check_parent(path)
        self._clear_stale()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is made 0600: no one else may even connect
        try:
            listener.bind(path)  # bind never follows a link; a path that appeared since: refused
        except OSError as e:
            listener.close()
            raise IdlewiseError(f"{path}: cannot listen there: {e.strerror or e} (something appeared at the path: "
                                "it is never replaced)") from None
        finally:
            os.umask(old)
        listener.listen(16)
        st = os.lstat(path)
        self.identity = (st.st_dev, st.st_ino)
        self.listener = listener

    def _clear_stale(self) -> None:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return
        except OSError as e:
            raise IdlewiseError(f"{self.path}: {e.strerror or e}") from None
        if not stat.S_ISSOCK(st.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode) else "a file"
            raise IdlewiseError(f"{self.path}: {kind} is there, not a socket: the manager never replaces what it did not "
                                "make; pass --socket with a path of its own")
        if st.st_uid != os.geteuid():
            raise IdlewiseError(f"{self.path}: a socket of user {st.st_uid} is there: not this manager's; remove it or "
                                "pass --socket")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(self.path)
        except OSError:
            os.unlink(self.path)  # a socket of ours that no one answers on: a manager that died
            return
        finally:
            probe.close()
        raise IdlewiseError(f"{self.path}: another manager answers there; stop it, or pass --socket")

    def remove(self) -> None:
        self.listener.close()
        try:
            st = os.lstat(self.path)
        except OSError:
            return
        if (st.st_dev, st.st_ino) == self.identity:
            os.unlink(self.path)


__all__ = ["OwnSocket", "ROOT_RUNTIME_DIR", "check_own_dir", "default_socket", "open_log", "peer_uid", "runtime_dir",
           "same_file", "trusted"]
