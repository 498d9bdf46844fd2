"""Picture files of rendered images, PNG or JPEG, written atomically."""

from __future__ import annotations

from pathlib import Path

import imageio.v3 as iio
import numpy as np

from sim.atomic import write_bytes

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}  # file suffix -> format written
JPEG_QUALITY = 95  # no visible artefacts on the smooth gradients of the backdrop


def png_bytes(image: np.ndarray) -> bytes:
    """Encode an (h, w, 4) or (h, w, 3) uint8 image as PNG."""
    return iio.imwrite("<bytes>", np.ascontiguousarray(image, dtype=np.uint8), extension=".png")


def jpeg_bytes(image: np.ndarray, quality: int = JPEG_QUALITY) -> bytes:
    """Encode an (h, w, 3) uint8 image as JPEG (an alpha channel is dropped: JPEG has none)."""
    rgb = np.ascontiguousarray(np.asarray(image, dtype=np.uint8)[..., :3])
    return iio.imwrite("<bytes>", rgb, extension=".jpg", quality=quality)


def image_format(path) -> str | None:
    """``PNG`` or ``JPEG`` for a file name ending in .png, .jpg or .jpeg (any case); else None."""
    return IMAGE_FORMATS.get(Path(path).suffix.lower())


def save_png(image: np.ndarray, path) -> Path:
    """Write an (h, w, 4) or (h, w, 3) uint8 image to ``path`` as PNG, atomically; returns the path."""
    return write_bytes(path, png_bytes(image))


def save_image(image: np.ndarray, path) -> Path:
    """Write an image in the format its file name says (.png, or .jpg/.jpeg), atomically; returns the path.

    Raises:
        ValueError: another suffix.
    """
    fmt = image_format(path)
    if fmt is None:
        raise ValueError(f"{path}: expected a .png, .jpg or .jpeg file name")
    return write_bytes(path, png_bytes(image) if fmt == "PNG" else jpeg_bytes(image))


def load_png(path) -> np.ndarray:
    """Read a PNG as an (h, w, 4) uint8 RGBA array."""
    image = np.asarray(iio.imread(path))
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.shape[2] == 3:
        image = np.concatenate([image, np.full(image.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return image
