"""Where the test suite's time goes, in CPU seconds rather than wall seconds: a pytest
plugin that charges each test (setup + call + teardown) the CPU time its whole process
tree spent meanwhile (pytest itself, Chromium and its renderers, Streamlit servers, worker
processes), and a script that runs pytest with it and prints a table per file.

On a machine shared by several people wall seconds say mostly how busy the others were;
CPU seconds of our own process tree barely move with the load. A process that ends is
counted with what it had used when last seen (the tree is looked at every 0.25 s and at
every test's start and end), so the totals are a lower bound.
Does not time anything itself for a test's pass or fail, and changes no test.

    python bench/cpu_durations.py tests/browser/test_browser_encoder.py
    python bench/cpu_durations.py --top 40 --tests tests/bpe > /tmp/bpe.md
    python -m pytest -p bench.cpu_durations tests/viz      # as a plugin only
"""
import argparse
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


class TreeCpu:
    """CPU seconds (user + system) of this process and of every descendant seen so far:
    a thread looks at the process tree every `every` s and keeps each process's highest
    reading, so a process that ended still counts with what it had used when last seen.
    A process that lives less than `every` s is missed, and so is the last fraction of a
    second of each: the totals are a lower bound (the looking costs ~1% of a core)."""

    def __init__(self, every=0.25):
        import threading
        self.seen = {}  # (pid, start time) -> CPU seconds when last seen
        self.lock = threading.Lock()
        self.every = every
        self.stop = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self):
        while not self.stop.wait(self.every):
            self.look()

    def look(self):
        import psutil
        for proc in psutil.Process().children(recursive=True):
            try:
                with proc.oneshot():
                    key, c = (proc.pid, proc.create_time()), proc.cpu_times()
            except psutil.Error:  # ended between the listing and the read
                continue
            with self.lock:
                self.seen[key] = max(self.seen.get(key, 0.0), c.user + c.system)

    def __call__(self):
        self.look()
        t = os.times()
        with self.lock:
            return t.user + t.system + sum(self.seen.values())


class CpuDurations:
    def __init__(self, config):
        self.config = config
        self.cpu = TreeCpu()
        self.rows = []  # (nodeid, cpu s, wall s)
        self.start = None

    def pytest_sessionstart(self, session):
        self.start = (self.cpu(), time.monotonic())

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        cpu, wall = self.cpu(), time.monotonic()
        yield
        self.rows.append((item.nodeid, self.cpu() - cpu, time.monotonic() - wall))

    def pytest_terminal_summary(self, terminalreporter):
        top = self.config.getoption("cpu_top")
        cpu0, wall0 = self.start
        rows = sorted(self.rows, key=lambda r: -r[1])
        files = defaultdict(lambda: [0, 0.0, 0.0])
        for nodeid, cpu, wall in self.rows:
            f = files[nodeid.split("::")[0]]
            f[0] += 1
            f[1] += cpu
            f[2] += wall
        w = terminalreporter.write_line
        w("")
        w(f"CPU seconds of the process tree: {self.cpu() - cpu0:.1f} in "
          f"{time.monotonic() - wall0:.1f} s of wall time, load "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        w("")
        w("| file | tests | CPU s | wall s |")
        w("|---|---:|---:|---:|")
        for name, (n, cpu, wall) in sorted(files.items(), key=lambda kv: -kv[1][1]):
            w(f"| {name} | {n} | {cpu:.1f} | {wall:.1f} |")
        if top:
            w("")
            w("| test | CPU s | wall s |")
            w("|---|---:|---:|")
            for nodeid, cpu, wall in rows[:top]:
                w(f"| {nodeid} | {cpu:.1f} | {wall:.1f} |")


def pytest_addoption(parser):
    parser.addoption("--cpu-top", dest="cpu_top", type=int, default=25,
                     help="cpu_durations: list the N tests that cost the most CPU")


def pytest_configure(config):
    config.pluginmanager.register(CpuDurations(config), "cpu_durations_table")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="test files or folders (pytest's arguments)")
    parser.add_argument("--top", type=int, default=25, help="list the N costliest tests")
    args, rest = parser.parse_known_args(argv)
    cmd = [sys.executable, "-m", "pytest", "-p", "bench.cpu_durations", "-p",
           "no:cacheprovider", "-n", "0",  # one process: each test's CPU is charged to it
           f"--cpu-top={args.top}", *rest, *args.paths]
    return subprocess.call(cmd, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
