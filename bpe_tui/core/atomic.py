"""Atomic writes: a file is either its old self or completely new, never half-written.

Write to a temporary file in the same directory, flush it to disk, then ``os.replace`` it
over the target (atomic on POSIX and Windows). If anything fails, the temporary file is
removed and the old file is untouched.

What the target may be, and how it is treated:

* a **symlink** is followed: the regular file it names is replaced, the link stays a link;
* anything that is **not a regular file** (a FIFO, a device such as ``/dev/null``, a
  directory, a socket) is refused: replacing it would destroy something that is not ours;
* with ``overwrite=False`` the file is created **exclusively**, checked at the moment of
  writing (a hard link of the finished temporary file, which fails if the name exists), so a
  file that appeared while we were training is never overwritten;
* a new file gets the permissions of any new file (``0666`` less the umask, so ``0644``
  under umask 022); a replaced file keeps its own.

Multi-file outputs (a directory of files, as the gpt2 format writes) are replaced as a
whole with :func:`atomic_write_dir`: the files are written into a temporary sibling
directory, which is then renamed over the target.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile

from .errors import AlreadyExists, BPEError


def current_umask() -> int:
    """The process's umask (read from /proc where it can be, without changing it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # the portable way: set and restore at once
    os.umask(mask)
    return mask


def resolve_target(path: str | os.PathLike[str], overwrite: bool = True, kind: str = "file") -> str:
    """The path to write for ``path``: symlinks followed, non-regular files refused.

    ``kind`` is "file" or "directory" (what the writer is about to put there). Raises
    BPEError if the target exists and is something else, or exists and ``overwrite`` is False.
    """
    path = os.fspath(path)
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real
    except OSError as exc:
        raise BPEError(f"{path}: cannot write: {exc.strerror}") from None
    if kind == "file" and not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise BPEError(f"{path}: refusing to write: it is {what}")
    if kind == "directory" and not stat.S_ISDIR(st.st_mode):
        raise BPEError(f"{path}: this format writes a directory, and {path} is not one")
    if not overwrite:
        raise AlreadyExists(path)
    return real


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, overwrite: bool = True) -> None:
    """Write ``data`` to ``path`` atomically; BPEError (one line) if that is impossible.

    ``overwrite=False`` creates the file exclusively: if it exists by the time the data is
    ready, nothing is written and BPEError says so.
    """
    shown = os.fspath(path)
    target = resolve_target(path, overwrite)
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise BPEError(f"{shown}: cannot write: directory {directory} does not exist")
    try:
        old_mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        old_mode = 0o666 & ~current_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=".bpe-tui-", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise BPEError(f"{shown}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), old_mode)
            os.fsync(f.fileno())
        if overwrite:
            resolve_target(path, True)  # still a regular file (or absent) at this moment?
            os.replace(tmp, target)
        else:
            _create_exclusively(tmp, target, shown)
    except OSError as exc:
        _remove(tmp)
        raise BPEError(f"{shown}: cannot write: {exc.strerror}") from None
    except BaseException:
        _remove(tmp)
        raise


def _create_exclusively(tmp: str, target: str, shown: str) -> None:
    """Give the finished ``tmp`` the name ``target`` only if that name is free, atomically."""
    try:
        os.link(tmp, target)  # fails with EEXIST if the name is taken, whatever raced us
    except FileExistsError:
        _remove(tmp)
        raise AlreadyExists(shown) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK, errno.ENOSYS):
            raise
        # A file system without hard links: the closest we can get is check, then rename.
        if os.path.lexists(target):
            _remove(tmp)
            raise AlreadyExists(shown) from None
        os.replace(tmp, target)
        return
    _remove(tmp)


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def atomic_write_text(path: str | os.PathLike[str], text: str, overwrite: bool = True) -> None:
    """Write UTF-8 text to ``path`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"), overwrite)


def atomic_write_dir(path: str | os.PathLike[str], files: dict[str, bytes], overwrite: bool = True) -> None:
    """Replace the directory ``path`` by one holding exactly ``files`` (name -> bytes), as a whole.

    The files are written into a temporary sibling directory, which is renamed over the old
    one (swapped in one step where the system can, Linux's ``renameat2``; elsewhere in two
    renames, between which a crash leaves the old directory in a hidden ``.bpe-tui-old-*``
    sibling), never a mix. A directory that holds other files as well is not
    thrown away: there the files are replaced one by one, each atomically.
    """
    shown = os.fspath(path)
    target = resolve_target(path, overwrite, kind="directory")
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise BPEError(f"{shown}: cannot write: directory {parent} does not exist")
    if os.path.isdir(target) and set(os.listdir(target)) - set(files):
        for name, data in files.items():  # a shared directory: file by file
            atomic_write_bytes(os.path.join(target, name), data)
        return
    mode = 0o777 & ~current_umask()
    try:
        tmp = tempfile.mkdtemp(prefix=".bpe-tui-", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise BPEError(f"{shown}: cannot write: {exc.strerror}") from None
    old = None
    try:
        for name, data in files.items():
            atomic_write_bytes(os.path.join(tmp, name), data, overwrite=False)
        os.chmod(tmp, mode)
        if not os.path.exists(target):
            os.rename(tmp, target)  # fails if a directory appeared there meanwhile
            return
        if not overwrite:
            raise AlreadyExists(shown)
        if _exchange(tmp, target):  # Linux: one atomic swap; tmp now holds the old files
            shutil.rmtree(tmp, ignore_errors=True)
            return
        old = tempfile.mkdtemp(prefix=".bpe-tui-old-", dir=parent)
        os.rename(target, os.path.join(old, "x"))
        try:
            os.rename(tmp, target)
        except OSError:
            os.rename(os.path.join(old, "x"), target)  # put the old one back
            raise
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BPEError(f"{shown}: cannot write: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _exchange(a: str, b: str) -> bool:
    """Swap two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError, ImportError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return bool(renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0)
