import pathlib
import sys

# wpt.py (the vector runner) sits beside the tests.
sys.path.insert(0, str(pathlib.Path(__file__).parent))
