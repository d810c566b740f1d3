"""What the CLI end-to-end tests (cli_*_test.py) share: the list of failed
checks and check(), running the attn tool, a temporary folder of .npy files,
and the exit code with its summary line. Only Dir.save needs NumPy.
"""
import contextlib
import os
import shutil
import subprocess
import tempfile

failures = []


def check(cond, what):
    """Records and prints `what` when cond is false; returns cond."""
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def runner(cmd, timeout=120):
    """run(*args) -> (exit code, stdout, stderr) of the command list `cmd`
    followed by args (each passed through str), killed after `timeout` s."""
    def run(*args):
        p = subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    return run


class Dir:
    """A folder: d(name) is a path in it; d.save(name, array) writes a .npy
    there and returns its path; d.clear(*names) removes those that exist."""

    def __init__(self, root):
        self.root = root

    def __call__(self, name):
        return os.path.join(self.root, name)

    def save(self, name, arr):
        import numpy as np
        np.save(self(name), arr)
        return self(name)

    def clear(self, *names):
        for n in names:
            if os.path.exists(self(n)):
                os.remove(self(n))


@contextlib.contextmanager
def temp_dir(prefix):
    """A Dir over a fresh temporary folder, removed afterwards."""
    root = tempfile.mkdtemp(prefix=prefix)
    try:
        yield Dir(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def finish(passed):
    """The exit code: 1 after the count of failed checks, else 0 after `passed`."""
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print(passed)
    return 0
