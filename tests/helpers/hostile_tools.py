"""What both sides of a hostile attempt use (tests/helpers/hostile_cases.py): the runner, and the
fresh process an attempt runs in, which imports only this (so its memory baseline holds
no more than bpe and these few lines)."""
import os
import subprocess


def status_mb(field, pid="self"):
    """A memory figure of a process from /proc, in MB (VmRSS: resident now; VmHWM: its
    peak so far); 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb(pid="self"):
    """Resident memory of a process, in MB."""
    return status_mb("VmRSS", pid)


def capped(cap_bytes, close_stdin=False):
    """A preexec_fn: the child's address space capped at cap_bytes (a bomb that works
    fails there), its standard input closed if close_stdin."""
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
        if close_stdin:
            os.close(0)
    return apply


def mount_full(path, size="64k"):
    """A tiny tmpfs at path, to fill: a full disk without filling the machine's."""
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], check=True)


def fill(path):
    """Write to path until the disk is full."""
    with open(os.path.join(path, "filler"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 512)
        except OSError:
            pass
