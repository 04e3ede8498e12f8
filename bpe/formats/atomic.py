"""Saving files so that a failure never loses the good copy, and reading stdin safely.

`write_files({path: text, ...})` writes every file to a temporary file beside its
target, flushes and fsyncs it, and only when all are written renames them into place;
if anything fails, the old files are left (or put back) as they were, the temporary
files are removed, and the error names the file: "cannot write models/x.model: No space
left on device". `check_prefix` refuses a save prefix that names no file (`-o ''` would
write a hidden `./.model`). `read_stdin_bytes` reads standard input or says it is closed.

This file knows nothing of tokenizers: base.py's save() hands it the texts.
"""
import os
import sys
import tempfile


class SaveError(OSError):
    """A save that did not happen: errno, strerror and filename as OSError's, and str()
    a whole sentence: "cannot write models/x.model: No space left on device"."""

    def __str__(self):
        return f"cannot write {self.filename}: {self.strerror}"


def _failed(target, error, note=""):
    return SaveError(error.errno, (error.strerror or str(error)) + note, target)


def check_prefix(file_prefix):
    """The save prefix as a str, or ValueError if it names no file: empty, a folder
    ('models/'), '.' or '..', or it contains a NUL.

    >>> check_prefix("models/shakespeare")
    'models/shakespeare'
    >>> check_prefix("")
    Traceback (most recent call last):
    ...
    ValueError: the output prefix '' names no file (it would write a hidden '.model'); give a name like models/mytok
    """
    prefix = os.fspath(file_prefix)
    if not isinstance(prefix, str):
        prefix = os.fsdecode(prefix)
    name = os.path.basename(prefix)
    if "\x00" in prefix:
        raise ValueError(f"the output prefix {prefix!r:.60} contains a NUL character")
    if not name.strip() or name in (".", ".."):
        raise ValueError(f"the output prefix {prefix!r:.60} names no file (it would write a "
                         f"hidden '{name if name in ('.', '..') else ''}.model'); give a name "
                         "like models/mytok")
    return prefix


def write_files(contents):
    """Write {path: str or bytes} atomically, all or none: temporary files beside the
    targets, fsync, then rename; on failure every target keeps its old content (or stays
    absent). Raises SaveError naming the file that could not be written.
    """
    staged = []    # (temporary path, target path)
    backups = {}   # target -> hard link to its old content
    existed = set()
    replaced = []
    try:
        for path, data in contents.items():
            staged.append((_stage(os.fspath(path), data), os.fspath(path)))
        for _, target in staged:
            if os.path.exists(target):
                existed.add(target)
                backups[target] = _backup(target)
        for tmp, target in staged:
            try:
                os.replace(tmp, target)
            except OSError as e:
                raise _failed(target, e) from None
            replaced.append(target)
        _fsync_dirs(target for _, target in staged)
    except BaseException:
        for tmp, target in staged:
            if target not in replaced:
                _remove(tmp)
        for target in replaced:  # undo this save's renames: both files or neither
            if backups.get(target):
                os.replace(backups[target], target)
            elif target not in existed:
                _remove(target)
        raise
    finally:
        for backup in backups.values():
            if backup:
                _remove(backup)


def _stage(target, data):
    """A fsynced temporary file beside target holding data; SaveError naming target."""
    directory = os.path.dirname(target) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.",
                                   suffix=".tmp")
    except OSError as e:
        raise _failed(target, e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        _remove(tmp)
        raise _failed(target, e) from None
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _backup(target):
    """A hard link to target's current content, so a later failure can put it back
    without copying; None where the filesystem has no hard links (then each file is
    still replaced atomically, but a failed second rename cannot undo the first)."""
    directory, name = os.path.split(target)
    backup = os.path.join(directory, f".{name}.{os.getpid()}.bak")
    try:
        _remove(backup)
        os.link(target, backup)
    except OSError:
        return None
    return backup


def _fsync_dirs(targets):
    for directory in {os.path.dirname(t) or "." for t in targets}:
        try:
            fd = os.open(directory, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass  # some filesystems cannot fsync a folder; the rename is still atomic
        finally:
            os.close(fd)


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def read_stdin_bytes():
    """All of standard input as bytes; ValueError if it is closed (`bpe encode <&-`),
    saying how to give the text instead."""
    stream = sys.stdin
    try:
        if stream is None or stream.closed:
            raise ValueError
        return stream.buffer.read()
    except (ValueError, OSError, AttributeError):
        raise ValueError("standard input is closed; give the text as a FILE argument or "
                         "pipe it in (bpe encode FILE, or ... | bpe encode)") from None
