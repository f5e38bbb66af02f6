"""Tests of the Python SDK. ``python3 -m unittest discover`` from ``sdks/python`` runs them against
the sources in ``src`` (no installation needed)."""

import sys
from pathlib import Path

SOURCES = Path(__file__).resolve().parent.parent / "src"
if str(SOURCES) not in sys.path:
    sys.path.insert(0, str(SOURCES))
