"""Shared fixtures: the repository's binary (for figures the package must agree with) and
its shipped networks."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def binary():
    """The junglezero binary built from the same checkout (JZ_BINARY, or target/release)."""
    path = pathlib.Path(os.environ.get("JZ_BINARY", ROOT / "target" / "release" / "junglezero"))
    if not path.is_file():
        pytest.fail(f"no junglezero binary at {path}: build it (cargo build --release) or set JZ_BINARY")
    return path


@pytest.fixture(scope="session")
def run(binary):
    """Runs the binary with arguments; its standard output."""

    def call(*args):
        done = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"junglezero {' '.join(map(str, args))}: {done.stderr}"
        return done.stdout

    return call


@pytest.fixture(scope="session")
def jungle_model():
    return ROOT / "checkpoints" / "sample-cpu-1h" / "gen-0072.jzm"


@pytest.fixture(scope="session")
def flip_model():
    return ROOT / "checkpoints" / "learning" / "flip-235-generations" / "gen-0235.jzm"
