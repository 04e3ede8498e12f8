"""The one way to read a file a user names (a tokenizer, a corpus, a counts file): it must be
a regular file, and a read is bounded before it allocates.

`open_regular(path, what)` refuses a device (/dev/zero reads forever), a FIFO (opening one
nobody writes to blocks forever), a socket or a folder with a ValueError sentence at once:
it stats the path (following symlinks, so a link is judged by its real target), opens it
with O_NONBLOCK (so a FIFO swapped in after the stat cannot block the open), and checks
the open file again with fstat. `read_regular(path, limit, what)` reads such a file whole,
refusing one over limit bytes without reading it, and reading at most limit + 1 bytes (a
file that grows, or claims size 0 as /proc's do, is still bounded).

`same_file_as(output, paths)` says which of paths an output would overwrite: the same
file by (st_dev, st_ino), so through a symlink or a hard link too.

A missing or unreadable file raises the usual OSError (FileNotFoundError, ...), for the
caller to word. This file does not parse anything.
"""
import errno
import os
import stat

KINDS = (  # (test, words): what a path that is no regular file is, for the sentence
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def check_regular(path, mode, what="file"):
    """ValueError unless mode (an st_mode) is a regular file's:
    "the model /dev/zero is a character device, not a regular file; give a file's path"."""
    if stat.S_ISREG(mode):
        return
    kind = next((words for test, words in KINDS if test(mode)), "not a file")
    raise ValueError(f"{what} {path} is {kind}, not a regular file; give the path of a file")


def open_regular(path, what="file"):
    """path opened for reading in binary, after checking it is a regular file (ValueError
    saying what it is otherwise); never blocks on a FIFO."""
    path = os.fspath(path)
    check_regular(path, os.stat(path).st_mode, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        if e.errno == errno.ENXIO:  # a socket swapped in after the stat
            raise ValueError(f"{what} {path} is a socket, not a regular file; give the "
                             "path of a file") from None
        raise
    try:
        check_regular(path, os.fstat(fd).st_mode, what)  # swapped after the stat?
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path, limit, what="file"):
    """The bytes of the regular file at path; ValueError if it is no regular file or holds
    more than limit bytes (said before reading, from its size; a file that grows while it
    is read is cut off at limit + 1 bytes and refused the same way)."""
    path = os.fspath(path)
    with open_regular(path, what) as f:
        if os.fstat(f.fileno()).st_size > limit:
            raise _too_big(path, limit, what)
        data = f.read(limit + 1)  # bounded even if it grows, or says 0 as /proc's do
    if len(data) > limit:
        raise _too_big(path, limit, what)
    return data


def same_file_as(output, paths):
    """The first of paths that output names too (the same file, through any symlink or
    hard link), or None; None too if output does not exist yet. Paths that cannot be
    statted are skipped (they are checked, and refused, where they are read)."""
    try:
        out = os.stat(output)
    except OSError:
        return None
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            return path
    return None


def _too_big(path, limit, what):
    return ValueError(f"{what} {path} holds more than {limit:,} bytes, the most that is read "
                      "for it")
