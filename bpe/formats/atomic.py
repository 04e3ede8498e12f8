"""Saving files so that a failure never loses the good copy, and reading stdin safely.

`write_files({path: text, ...})` writes every file to a temporary file beside its
target, flushes and fsyncs it, and only when all are written renames them into place
(a symlink is followed, so its target is replaced and the link kept; a device, a folder
or any other non-file is refused; a new file gets the usual 0666 & ~umask mode, a
replaced one keeps its own);
if anything fails, the old files are left (or put back) as they were, the temporary
files are removed, and the error names the file: "cannot write models/x.model: No space
left on device". `check_prefix` refuses a save prefix that names no file (`-o ''` would
write a hidden `./.model`). `read_stdin_bytes` reads standard input or says it is closed.

This file knows nothing of tokenizers: base.py's save() hands it the texts.
"""
import errno
import os
import stat
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
    """Write {path: str, bytes or a list of bytes blocks} atomically, all or none:
    temporary files beside the targets, fsync, then rename; on failure every target keeps
    its old content (or stays absent). Raises SaveError naming the file that could not be
    written (or that is no file: a device, a folder, a socket).
    """
    staged = []    # (temporary path, target path)
    backups = {}   # target -> hard link to its old content
    existed = set()
    replaced = []
    try:
        for path, data in contents.items():
            target = real_target(os.fspath(path))
            staged.append((_stage(target, data), target))
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


def real_target(path):
    """The file a save to path replaces: a symlink's target (so the link stays a link and
    its target is what changes), after checking that it is a regular file or absent
(SaveError otherwise; a command may call it before its work, to fail early)."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    except OSError as e:
        raise _failed(path, e) from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a device or other special file"
        raise SaveError(errno.EINVAL, f"it is {kind}, not a file; give the name of a file",
                        path)
    return target


def _file_mode(target):
    """The mode a save gives target: its own if it exists, else 0666 less the umask (what
    open() would give), not mkstemp's 0600."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask():
    """The process's umask, read without changing it (os.umask sets it, which would race
    with other threads creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no /proc: the one racy way there is, set back at once
    os.umask(mask)
    return mask


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
        os.fchmod(fd, _file_mode(target))
        with os.fdopen(fd, "wb") as f:
            blocks = data if isinstance(data, (list, tuple)) else [data]
            for block in blocks:
                f.write(block.encode("utf-8") if isinstance(block, str) else block)
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
