"""The examples, run as a user runs them."""

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
MODEL = pathlib.Path(os.environ.get("WEBNN_MODELS_DIR", ROOT / "www" / "models")) / "efficientnet-lite0"


@pytest.mark.parametrize("picture,label", [("chelsea.png", "tiger cat"), ("coffee.png", "espresso")])
def test_classify(picture, label):
    if not (MODEL / "manifest.json").exists():
        if os.environ.get("CI") == "true":
            raise FileNotFoundError(f"{MODEL}: scripts/models.sh writes it")
        pytest.skip("bash scripts/models.sh first")
    out = subprocess.run(
        [sys.executable, str(HERE / "examples" / "classify.py"), picture, "--top", "1"],
        check=True, capture_output=True, text=True,
    ).stdout
    print(out)
    top = out.splitlines()[1]
    assert top.split("  ", 1)[1] == label, out
