"""How things look: surface finish per material, lights, background, table and shadow settings.

Plain data, no Panda3D: the renderer turns it into shader inputs. Colours of
the lights are linear RGB; the background's are sRGB-encoded, as they appear.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Finish:
    """The surface finish of a material.

    Attributes:
        specular: strength of the light's highlight (0: matte).
        shininess: Blinn-Phong exponent: larger is a smaller, sharper highlight.
        pattern: ``grain`` (wood's growth rings and fibres), ``mottle`` (the faint
            blotches of cardboard) or ``plain``.
        strength: how strongly the pattern shows (0..1).
        sheen: strength of the sky's reflection (a varnish or polished plastic).
    """

    specular: float
    shininess: float
    pattern: str = "plain"
    strength: float = 0.0
    sheen: float = 0.0

    def as_vec4(self) -> tuple[float, float, float, float]:
        """(specular, shininess, pattern strength, 0) for the shader."""
        return (self.specular, self.shininess, self.strength, 0.0)


FINISHES = {
    "wood": Finish(specular=0.10, shininess=18.0, pattern="grain", strength=1.0, sheen=0.04),  # oiled beech
    "plastic": Finish(specular=0.7, shininess=60.0, sheen=0.3),  # injection-moulded, glossy
    "cardboard": Finish(specular=0.0, shininess=1.0, pattern="mottle", strength=1.0),  # printed matte board
}
DECAL_FINISH = Finish(specular=0.02, shininess=8.0)  # printed ink: matte, no grain showing through


def finish(material_name: str) -> Finish:
    """The finish of a material (``wood``, ``plastic`` or ``cardboard``); unknown ones look like wood."""
    return FINISHES.get(material_name, FINISHES["wood"])


def grain_seed(piece_id: str) -> tuple[float, float, float, float]:
    """Where a piece's wood comes from in the procedural log (mm), stable per piece id.

    Every piece shows a different cut of the same pattern: an offset along the
    grain and a distance of the log's axis from the piece. CRC32 rather than
    ``hash`` so that pictures do not change between runs.
    """
    h = zlib.crc32(piece_id.encode("utf-8"))
    rng = np.random.default_rng(h)
    along = rng.uniform(0.0, 500.0)
    angle = rng.uniform(0.0, 2.0 * np.pi)
    radius = rng.uniform(35.0, 110.0)
    return (float(along), float(radius * np.cos(angle)), float(radius * np.sin(angle)), 0.0)


@dataclass(frozen=True)
class Lighting:
    """Lights of a picture, relative to the camera so that every view is lit alike.

    Attributes:
        key_azimuth: degrees of the key light to the left of the view direction.
        key_elevation: degrees above the horizon.
        key_color: linear RGB of the key (shadow-casting) light.
        fill_color: linear RGB of the unshadowed fill light from the opposite side.
        sky, ground: linear RGB of the hemispheric ambient light from above and below.
        shadow_softness: least radius of the shadows' penumbra (m), right at the contact.
        key_size_deg: apparent diameter of the key light: the penumbra widens by
            its tangent with every metre between the blocker and the shadow.
        penumbra_limit: largest penumbra radius (m).
        shadow_strength: how much the floor darkens in full shadow (0..1).
        occlusion_radius: reach of the soft contact shadow around what stands on a surface (m).
        occlusion_strength: how much ambient light contact occlusion takes away (0..1).
    """

    key_azimuth: float = 55.0
    key_elevation: float = 58.0
    key_color: tuple[float, float, float] = (1.22, 1.18, 1.10)
    fill_color: tuple[float, float, float] = (0.16, 0.17, 0.20)
    sky: tuple[float, float, float] = (0.30, 0.31, 0.34)
    ground: tuple[float, float, float] = (0.12, 0.11, 0.10)
    shadow_softness: float = 0.6e-3
    key_size_deg: float = 4.0
    penumbra_limit: float = 4e-3
    shadow_strength: float = 0.42
    occlusion_radius: float = 9e-3
    occlusion_strength: float = 0.6

    def key_direction(self, view_forward) -> np.ndarray:
        """(3,) unit vector towards the key light for a camera looking along ``view_forward``."""
        return _relative_direction(view_forward, self.key_azimuth, self.key_elevation)

    def fill_direction(self, view_forward) -> np.ndarray:
        """(3,) unit vector towards the fill light: low, from the right of the view."""
        return _relative_direction(view_forward, self.key_azimuth - 180.0 + 40.0, 20.0)


def _relative_direction(view_forward, azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    f = np.asarray(view_forward, dtype=float)
    horizontal = np.array([f[0], f[1], 0.0])
    if np.linalg.norm(horizontal) < 1e-6:  # looking straight down: "forward" is the image's up
        horizontal = np.array([0.0, 1.0, 0.0])
    back = -horizontal / np.linalg.norm(horizontal)  # from the scene towards the camera
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    left = np.array([back[1], -back[0], 0.0])  # the viewer's left
    d = np.cos(e) * (np.cos(a) * back + np.sin(a) * left) + np.array([0.0, 0.0, np.sin(e)])
    return d / np.linalg.norm(d)


@dataclass(frozen=True)
class Backdrop:
    """The background of opaque pictures: a vertical gradient with a soft vignette (sRGB).

    Attributes:
        top, bottom: colours at the image's top and bottom edges.
        vignette: how much the corners darken (0..1).
    """

    top: tuple[float, float, float] = (0.93, 0.93, 0.94)
    bottom: tuple[float, float, float] = (0.78, 0.79, 0.81)
    vignette: float = 0.10


@dataclass(frozen=True)
class TableLook:
    """The endless table under a scene without a board (sRGB colours).

    Attributes:
        color: the table top as it appears in light.
        minor, major: spacing of its faint grid lines (m).
        minor_strength, major_strength: how much a line darkens the table (0..1).
        fade_start, fade_end: the table fades into the backdrop between these distances from the
            scene's centre, in multiples of the scene's size.
    """

    color: tuple[float, float, float] = (0.86, 0.855, 0.84)
    minor: float = 0.01
    major: float = 0.05
    minor_strength: float = 0.035
    major_strength: float = 0.09
    fade_start: float = 1.5
    fade_end: float = 8.0


LIGHTING = Lighting()
BACKDROP = Backdrop()
TABLE = TableLook()
