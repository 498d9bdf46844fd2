"""Test-wide settings: the tests never write into the user's cache folder."""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config):
    """Keep mesh decompositions of this run in a folder of its own (``$TOWERLAB_CACHE``)."""
    os.environ.setdefault("TOWERLAB_CACHE", tempfile.mkdtemp(prefix="towerlab-test-cache-"))
