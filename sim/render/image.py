"""PNG files of rendered pictures, written atomically."""

from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import numpy as np

from sim.atomic import write_bytes


def png_bytes(image: np.ndarray) -> bytes:
    """Encode an (h, w, 4) or (h, w, 3) uint8 image as PNG."""
    return iio.imwrite("<bytes>", np.ascontiguousarray(image, dtype=np.uint8), extension=".png")


def save_png(image: np.ndarray, path) -> Path:
    """Write an (h, w, 4) or (h, w, 3) uint8 image to ``path`` as PNG, atomically; returns the path."""
    return write_bytes(path, png_bytes(image))


def load_png(path) -> np.ndarray:
    """Read a PNG as an (h, w, 4) uint8 RGBA array."""
    image = np.asarray(iio.imread(path))
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.shape[2] == 3:
        image = np.concatenate([image, np.full(image.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return image
