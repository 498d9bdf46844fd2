"""The bytes of a recording's members: arrays as NPZ, data as JSON (docs/recording-format.md)."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping

import numpy as np

from sim.replay.container import zip_bytes


def npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """Arrays as NPZ bytes: each an ``.npy`` member, deflated; no pickled objects. ``numpy.load`` reads them.

    Raises:
        ValueError: an array of Python objects (it would need pickling).
    """
    members = {}
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.asanyarray(array), allow_pickle=False)
        members[f"{name}.npy"] = buffer.getvalue()
    return zip_bytes(members)


def json_bytes(data) -> bytes:
    """JSON bytes: UTF-8, keys in order, floats as Python writes them (they read back exactly)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
