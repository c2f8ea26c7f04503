"""The type stubs: current with the op table, and accepted by mypy on the examples."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
import stubgen  # noqa: E402


def test_stub_is_current():
    assert stubgen.STUB.read_text() == stubgen.render(), "run: python crates/webnn-py/stubgen.py"


def test_mypy_accepts_the_examples():
    mypy = shutil.which("mypy", path=str(pathlib.Path(sys.executable).parent))
    if mypy is None:
        if os.environ.get("CI") == "true":
            raise FileNotFoundError("mypy: scripts/python-test.sh --setup installs it")
        pytest.skip("mypy is not installed")
    env = dict(os.environ, MYPYPATH=str(HERE.parents[1] / "scripts" / "models"))
    r = subprocess.run(
        [mypy, "--strict", "--allow-untyped-calls", "--ignore-missing-imports", "--follow-imports=silent", str(HERE / "examples")],
        capture_output=True, text=True, env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_uses_the_stubs(tmp_path):
    """A wrong call is caught: the checker reads the stubs, not an untyped module."""
    mypy = shutil.which("mypy", path=str(pathlib.Path(sys.executable).parent))
    if mypy is None:
        pytest.skip("mypy is not installed")
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import webnn\n"
        "ctx = webnn.ML().create_context(device_type='cpu')\n"
        "b = webnn.MLGraphBuilder(ctx)\n"
        "b.conv2d('x', 3)\n"
        "b.reduce_mean(b.input('x', [2]), 'keep')\n"
    )
    r = subprocess.run([mypy, "--strict", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout
    assert r.stdout.count("error:") >= 3, r.stdout
