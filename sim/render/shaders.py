"""GLSL sources of the renderer: pieces, the shadow-catching floor or table, the backdrop, the depth and resolve passes.

Lighting is computed in linear RGB and written sRGB-encoded. Piece colours
arrive sRGB-encoded (as stored in the meshes) and are linearised first.

Written for llvmpipe, the CPU rasteriser behind headless EGL: it runs both
sides of a branch that differs between neighbouring pixels, so an early exit
saves nothing and every texture look-up in the source costs every pixel. The
piece shader is therefore compiled per surface (:func:`piece_fragment`): wood
gets the grain, cardboard the mottle, the board the contact occlusion, and
none of them pays for the others.
"""

from __future__ import annotations

import numpy as np

NOISE_SIZE = 256  # texels (1 mm each) per side of the repeating noise texture

VERSION = "#version 330\n"
PATTERNS = ("grain", "mottle", "plain")  # wood, cardboard, plastic and print


def _disk(n: int) -> np.ndarray:
    """(n, 2) points spread evenly over the unit disk (a Vogel spiral): filter taps."""
    i = np.arange(n) + 0.5
    r = np.sqrt(i / n)
    a = i * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def _turns(n: int) -> np.ndarray:
    """(n, 2) unit vectors at evenly spread angles: rotations of the filter taps.

    A pixel picks one by a hash of its position; a table costs less per pixel
    than the sine and cosine of a hashed angle.
    """
    a = 2.0 * np.pi * (np.arange(n) + 0.5) / n
    return np.column_stack([np.cos(a), np.sin(a)])


def _glsl_points(name: str, points: np.ndarray) -> str:
    items = ", ".join(f"vec2({x:.6f}, {y:.6f})" for x, y in points)
    return f"const vec2 {name}[{len(points)}] = vec2[]({items});"


# Shared by the pieces and the floor: filtered shadow look-up, backdrop colour, colour transfer.
_COMMON = """
uniform sampler2DShadow u_shadow_map;  // depth seen from the key light, compared
uniform sampler2D u_shadow_depth;      // the same depths, read as numbers (blocker search)
uniform vec4 u_shadow_params;  // x: least penumbra radius, y: blocker search radius (texture units);
                               // z: depth bias; w: penumbra radius per unit of depth behind the blocker
uniform sampler2DShadow u_occlusion_map;  // depth seen from straight above
uniform vec4 u_occlusion_params;  // x, y: reach in texture units; z, w: least and most occluder height (depth)
uniform float u_shadow_slope;     // shadow map depth units per texture unit of a 45 degree slope
uniform vec3 u_key_dir;           // towards the key light
uniform float u_occlusion_strength;
uniform vec2 u_resolution;     // image size (px)
uniform vec3 u_bg_top;
uniform vec3 u_bg_bottom;
uniform float u_vignette;

""" + "\n".join([_glsl_points("TURNS", _turns(16)), _glsl_points("DISK8", _disk(8))]) + """

float hash12(vec2 p) {
    vec3 q = fract(vec3(p.xyx) * 0.1031);
    q += dot(q, q.yzx + 33.33);
    return fract((q.x + q.y) * q.z);
}

// Soft shadows whose penumbra widens with the distance from the blocker, as under a light of
// some size. The depth the light sees at the point itself tells how far above the blocker is
// (in the shadow), and so how wide the penumbra; outside the shadow a middling width is used.
// Eight filtered taps on a disk turned randomly from pixel to pixel: a wide penumbra is a fine
// grain rather than stacked copies of the edge.
float lit_fraction(vec4 coord, float ndl) {
    vec3 p = coord.xyz / coord.w;
    // A surface at an angle to the light comes nearer to it across the filter: the reference
    // depth steps back by that slope times the filter's radius (a receiver-plane bias), so that
    // the surface does not shadow itself.
    float slope = min(sqrt(max(1.0 - ndl * ndl, 0.0)) / max(ndl, 0.1), 10.0) * u_shadow_slope;
    float ref = p.z - u_shadow_params.z;
    float blocker = texture(u_shadow_depth, p.xy).r;
    float radius = blocker < ref - slope * u_shadow_params.x
        ? clamp((ref - blocker) * u_shadow_params.w, u_shadow_params.x, u_shadow_params.y)
        : 0.5 * u_shadow_params.y;
    ref -= slope * radius;
    vec2 spin = TURNS[int(hash12(gl_FragCoord.xy) * 15.999)] * radius;
    mat2 turn = mat2(spin.x, spin.y, -spin.y, spin.x);
    float sum = 0.0;
    for (int i = 0; i < 8; ++i) {
        sum += texture(u_shadow_map, vec3(p.xy + turn * DISK8[i], ref));
    }
    return p.z >= 1.0 ? 1.0 : sum / 8.0;
}

// How much of the neighbourhood of an upward-facing point is covered by something whose top is
// a little above it (contact occlusion: the soft dark rim along a board's edge, at the foot of a
// block). A map seen from above cannot tell a plate floating high over the point from a tall
// block standing beside it, so tops higher than the reach count as neither.
float occlusion(vec4 coord) {
    vec3 p = coord.xyz / coord.w;
    float covered = 0.0;
    for (int i = 0; i < 8; ++i) {
        vec2 at = p.xy + DISK8[i] * u_occlusion_params.xy;
        covered += texture(u_occlusion_map, vec3(at, p.z - u_occlusion_params.w))
            - texture(u_occlusion_map, vec3(at, p.z - u_occlusion_params.z));
    }
    return smoothstep(0.0, 0.6, covered / 8.0);  // the foot of a wall (half covered): full
}

vec3 backdrop(vec2 frag) {
    vec2 uv = frag / u_resolution;
    vec3 c = mix(u_bg_bottom, u_bg_top, smoothstep(0.0, 1.0, uv.y));
    float d = length((uv - 0.5) * vec2(u_resolution.x / u_resolution.y, 1.0));
    c *= 1.0 - u_vignette * smoothstep(0.3, 0.95, d);
    return c + (hash12(frag) - 0.5) / 255.0;  // dither: no banding in the gradient
}

// sRGB encoding without pow (which a software rasteriser pays dearly for per pixel): a fit by
// square roots, within 0.5 % of the exact curve.
vec3 to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    vec3 s1 = sqrt(c);
    vec3 s2 = sqrt(s1);
    vec3 s3 = sqrt(s2);
    return clamp(0.662002687 * s1 + 0.684122060 * s2 - 0.323583601 * s3 - 0.0225411470 * c, 0.0, 1.0);
}
"""

PIECE_VERTEX = VERSION + """
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;
uniform mat4 u_shadow_matrix;  // world -> shadow map texture coordinates and depth
uniform mat4 u_occlusion_matrix;  // world -> occlusion map texture coordinates and depth
uniform float u_normal_offset; // m: look the shadow up a little off the surface (no acne)
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
out vec4 v_color;
out vec4 v_shadow;
out vec4 v_occlusion;
invariant gl_Position;  // the resolve pass must find exactly these depths again

void main() {
    vec4 world = p3d_ModelMatrix * p3d_Vertex;
    vec3 n = normalize(mat3(p3d_ModelMatrix) * p3d_Normal);
    v_world = world.xyz;
    v_normal = n;
    v_local = p3d_Vertex.xyz;
    vec3 c = p3d_Color.rgb;  // sRGB-encoded -> linear, once per vertex
    v_color = vec4(mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c)), p3d_Color.a);
    v_shadow = u_shadow_matrix * vec4(world.xyz + n * u_normal_offset, 1.0);
    v_occlusion = u_occlusion_matrix * world;
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

_PIECE_FRAGMENT = _COMMON + """
uniform vec3 u_eye;
uniform vec3 u_key_color;
uniform vec3 u_fill_dir;
uniform vec3 u_fill_color;
uniform vec3 u_sky;
uniform vec3 u_ground;
uniform vec4 u_finish;  // specular, shininess, strength of the grain or mottle
uniform vec4 u_grain;   // xyz: where the piece was cut from the log (mm); w: sheen
uniform vec4 u_bevel;   // xyz: half size of a box-shaped piece (m); w: 1 to draw its edges eased
uniform sampler2D u_noise;  // random values on a 1 mm lattice, bilinearly filtered, repeating
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec4 v_color;
in vec4 v_shadow;
in vec4 v_occlusion;
out vec4 frag_color;

const float BEVEL_WIDTH = 6e-4;  // m
const float NOISE_SIZE = """ + f"{NOISE_SIZE:.1f}" + """;  // texels per side of the noise texture
const float EXPOSURE = 0.8;

// Smooth random values on a 1 mm lattice, tiled every 32 mm: one filtered look-up
float value_noise(vec2 p) {
    return texture(u_noise, p / NOISE_SIZE).r;
}

// Beech: growth rings of a log whose axis runs along the piece's x (its length), seen as
// fine stripes on the long faces and arcs on the ends, with fibres. Details finer than a pixel
// fade out (``pixel``: the pixel's size in mm), so that far wood is calm instead of noisy.
float wood(vec3 p, float pixel) {
    vec3 q = p + vec3(u_grain.x, 0.0, 0.0);
    // 2D look-ups of skewed planes through the 3D pattern: varying along every axis, and half the
    // cost of a 3D look-up
    float wobble = value_noise(vec2(0.035 * q.x + 0.15 * q.y, 0.22 * q.z - 0.1 * q.y));
    float r = length(q.yz + u_grain.yz) + 3.0 * wobble;
    float ring = fract(r / 2.4);
    float late = smoothstep(0.55, 0.9, ring) * (1.0 - smoothstep(0.9, 1.0, ring));
    float rings = 1.0 - smoothstep(0.9, 2.0, pixel);  // 2.4 mm rings need two pixels or more
    float fibres = 1.0 - smoothstep(0.3, 0.9, pixel);  // fibres 0.45 mm apart
    float fibre = value_noise(vec2(0.05 * q.x + 1.3 * q.z, 2.2 * q.y + 1.7 * q.z)) - 0.5;
    return 1.0 - 0.11 * late * rings - 0.045 * (1.0 - rings) - 0.08 * fibre * fibres;
}

float paper(vec3 p) {
    return 1.0 + 0.05 * (value_noise(0.8 * p.xy + 0.5 * p.z) - 0.5);
}

// Film-like tone curve (K. Narkowicz's fit of ACES): gentle contrast in the mid-tones and a long
// shoulder, so that a sunlit top face keeps its grain instead of clipping to white.
vec3 tone(vec3 c) {
    c *= EXPOSURE;
    return clamp(c * (2.51 * c + 0.03) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
}

void main() {
    vec3 albedo = v_color.rgb;
    vec3 n = normalize(v_normal) * (gl_FrontFacing ? 1.0 : -1.0);
    float ndl = max(dot(n, u_key_dir), 0.0);
    vec3 ambient = mix(u_ground, u_sky, 0.5 + 0.5 * n.z);
    vec3 mm = v_local * 1000.0;
#ifdef GRAIN
    albedo *= mix(1.0, wood(mm, length(fwidth(mm))), u_finish.z);
#endif
#ifdef MOTTLE
    albedo *= mix(1.0, paper(mm), u_finish.z);
#endif
    if (u_bevel.w > 0.0) {
        // Real blocks have eased edges that catch less light: darken a thin band along every edge
        // of a box, so that blocks lying side by side still read as separate pieces.
        vec3 d = u_bevel.xyz - abs(v_local);
        float edge = d.x + d.y + d.z - min(d.x, min(d.y, d.z)) - max(d.x, max(d.y, d.z));
        albedo *= mix(0.6, 1.0, smoothstep(0.0, BEVEL_WIDTH, edge));
    }
    vec3 v = normalize(u_eye - v_world);
    float shade = ndl > 0.0 ? lit_fraction(v_shadow, ndl) : 0.0;  // facing away: no look-up needed
    float occluded = 0.0;
#ifdef SUPPORT  // contact occlusion on what things stand on (the board)
    occluded = u_occlusion_strength * occlusion(v_occlusion) * smoothstep(0.3, 0.9, n.z);
#endif
    vec3 light = u_key_color * ndl * shade * (1.0 - 0.4 * occluded)
        + (u_fill_color * max(dot(n, u_fill_dir), 0.0) + ambient) * (1.0 - occluded);
    vec3 c = albedo * light;
    vec3 h = normalize(u_key_dir + v);
    c += u_key_color * (u_finish.x * pow(max(dot(n, h), 0.0), u_finish.y) * ndl * shade);
    float grazing = 1.0 - max(dot(n, v), 0.0);
    float fresnel = grazing * grazing * grazing * grazing * grazing;
    vec3 sky = mix(u_ground, u_sky, 0.5 + 0.5 * reflect(-v, n).z) * 2.0;
    c += u_grain.w * (0.12 + 0.88 * fresnel) * sky;  // a glossy surface mirrors the sky a little
    frag_color = vec4(to_srgb(tone(c)), 1.0);
}
"""



def piece_fragment(pattern: str, support: bool) -> str:
    """The piece shader for one kind of surface.

    Args:
        pattern: ``grain`` (wood), ``mottle`` (cardboard) or ``plain`` (plastic, print).
        support: whether things stand on it (the board): contact occlusion.

    Raises:
        ValueError: unknown pattern.
    """
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {', '.join(PATTERNS)}, got {pattern!r}")
    defines = [f"#define {pattern.upper()}"] + (["#define SUPPORT"] if support else [])
    return VERSION + "\n".join(defines) + "\n" + _PIECE_FRAGMENT


FLOOR_VERTEX = PIECE_VERTEX

FLOOR_FRAGMENT = VERSION + _COMMON + """
uniform float u_transparent;      // 1: write the shadow as coverage over a transparent background
uniform float u_shadow_strength;  // darkening in full shadow
in vec4 v_shadow;
in vec4 v_occlusion;
out vec4 frag_color;

void main() {
    float shadow = u_shadow_strength * (1.0 - lit_fraction(v_shadow, u_key_dir.z));
    float dark = 1.0 - (1.0 - shadow) * (1.0 - u_occlusion_strength * occlusion(v_occlusion));
    if (u_transparent > 0.5) {
        frag_color = vec4(0.0, 0.0, 0.0, dark);
    } else {
        frag_color = vec4(backdrop(gl_FragCoord.xy) * (1.0 - dark), 1.0);
    }
}
"""

# The endless table of a scene without a board: a matte surface with a faint millimetre grid (10 mm
# lines, stronger every 50 mm: the size of things and how far they stand off it), catching shadows
# and contact occlusion, fading into the backdrop towards the horizon.
TABLE_FRAGMENT = VERSION + _COMMON + """
uniform float u_shadow_strength;  // darkening in full shadow
uniform vec3 u_table_color;       // sRGB-encoded, as it appears in light
uniform vec4 u_table_grid;        // x, y: minor and major spacing (m); z, w: their darkening
uniform vec4 u_table_fade;        // xy: the scene's centre (m); z, w: fade into the backdrop from .. to (m)
in vec3 v_world;
in vec4 v_shadow;
in vec4 v_occlusion;
out vec4 frag_color;

// Coverage of grid lines of the given spacing (m) and width (m) at p, anti-aliased over the
// pixel's footprint; lines finer than about four pixels apart fade out instead of flickering.
float grid(vec2 p, float spacing, float width) {
    vec2 d = abs(fract(p / spacing + 0.5) - 0.5) * spacing;  // to the nearest line, per axis
    vec2 fw = fwidth(p);
    vec2 line = 1.0 - smoothstep(vec2(0.5 * width), vec2(0.5 * width) + fw, d);
    vec2 calm = 1.0 - smoothstep(0.12 * spacing, 0.3 * spacing, fw);
    return max(line.x * calm.x, line.y * calm.y);
}

void main() {
    vec2 p = v_world.xy;
    float lines = max(u_table_grid.z * grid(p, u_table_grid.x, 3e-4), u_table_grid.w * grid(p, u_table_grid.y, 6e-4));
    vec3 table = u_table_color * (1.0 - lines);
    float shadow = u_shadow_strength * (1.0 - lit_fraction(v_shadow, u_key_dir.z));
    float dark = 1.0 - (1.0 - shadow) * (1.0 - u_occlusion_strength * occlusion(v_occlusion));
    float far = smoothstep(u_table_fade.z, u_table_fade.w, length(p - u_table_fade.xy));
    vec3 c = mix(table, backdrop(gl_FragCoord.xy), far) * (1.0 - dark);
    frag_color = vec4(c, 1.0);
}
"""

# Positions alone, invariant: passes drawn over the same geometry land on exactly the same pixels.
_INVARIANT_VERTEX = VERSION + """
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;
invariant gl_Position;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

BACKDROP_VERTEX = _INVARIANT_VERTEX

BACKDROP_FRAGMENT = VERSION + _COMMON + """
out vec4 frag_color;

void main() {
    frag_color = vec4(backdrop(gl_FragCoord.xy), 1.0);
}
"""

DEPTH_VERTEX = VERSION + """
uniform mat4 p3d_ModelViewProjectionMatrix;
in vec4 p3d_Vertex;

void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

DEPTH_FRAGMENT = VERSION + """
void main() {
}
"""

# The multisampled second pass: every sample takes the colour the shading pass gave its own
# surface (see sim.render.buffers).
RESOLVE_VERTEX = _INVARIANT_VERTEX

RESOLVE_FRAGMENT = VERSION + """
uniform sampler2D u_shaded;        // the shading pass's colours, one per pixel
uniform sampler2D u_shaded_depth;  // and its depths
out vec4 frag_color;

const ivec2 NEIGHBOURS[4] = ivec2[](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));

void main() {
    ivec2 px = ivec2(gl_FragCoord.xy);
    float z = gl_FragCoord.z;
    float best = abs(texelFetch(u_shaded_depth, px, 0).r - z);
    ivec2 pick = px;
    // where another surface covers this pixel's centre, a neighbour on this one has the colour
    ivec2 last = textureSize(u_shaded_depth, 0) - 1;
    for (int i = 0; i < 4; ++i) {
        ivec2 q = clamp(px + NEIGHBOURS[i], ivec2(0), last);
        float d = abs(texelFetch(u_shaded_depth, q, 0).r - z);
        if (d < best - 1e-6) {
            best = d;
            pick = q;
        }
    }
    frag_color = texelFetch(u_shaded, pick, 0);
}
"""

# The fast alternative to the multisampled pass: FXAA (after Timothy Lottes' FXAA 2), a filter
# along the edges it finds in the shaded picture's brightness (and coverage, for transparency).
FXAA_FRAGMENT = VERSION + """
uniform sampler2D u_shaded;  // the shading pass's colours, bilinearly filtered
out vec4 frag_color;

float luma(vec4 c) {
    return dot(c.rgb, vec3(0.299, 0.587, 0.114)) + c.a;
}

void main() {
    vec2 texel = 1.0 / vec2(textureSize(u_shaded, 0));
    vec2 uv = gl_FragCoord.xy * texel;
    vec4 centre = texture(u_shaded, uv);
    float nw = luma(texture(u_shaded, uv + vec2(-0.5, -0.5) * texel));
    float ne = luma(texture(u_shaded, uv + vec2(0.5, -0.5) * texel));
    float sw = luma(texture(u_shaded, uv + vec2(-0.5, 0.5) * texel));
    float se = luma(texture(u_shaded, uv + vec2(0.5, 0.5) * texel));
    float m = luma(centre);
    float lo = min(m, min(min(nw, ne), min(sw, se)));
    float hi = max(m, max(max(nw, ne), max(sw, se)));
    if (hi - lo < max(0.04, hi * 0.1)) {
        frag_color = centre;  // no edge here
        return;
    }
    vec2 dir = vec2(-((nw + ne) - (sw + se)), (nw + sw) - (ne + se));
    float reduce = max((nw + ne + sw + se) * 0.03125, 1.0 / 128.0);
    dir = clamp(dir / (min(abs(dir.x), abs(dir.y)) + reduce), -8.0, 8.0) * texel;
    vec4 a = 0.5 * (texture(u_shaded, uv - dir / 6.0) + texture(u_shaded, uv + dir / 6.0));
    vec4 b = 0.5 * a + 0.25 * (texture(u_shaded, uv - dir * 0.5) + texture(u_shaded, uv + dir * 0.5));
    float lb = luma(b);
    frag_color = (lb < lo || lb > hi) ? a : b;
}
"""
