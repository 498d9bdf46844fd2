"""GLSL sources of the renderer: pieces, the shadow-catching floor, the backdrop and the shadow pass.

Lighting is computed in linear RGB and written sRGB-encoded. Piece colours
arrive sRGB-encoded (as stored in the meshes) and are linearised first.
"""

from __future__ import annotations

VERSION = "#version 330\n"

# Shared by the pieces and the floor: filtered shadow look-up, backdrop colour, colour transfer.
_COMMON = """
uniform sampler2DShadow u_shadow_map;  // depth seen from the key light, compared
uniform sampler2D u_shadow_depth;      // the same depths, read as numbers (blocker search)
uniform vec4 u_shadow_params;  // x: least penumbra radius, y: blocker search radius (texture units);
                               // z: depth bias; w: penumbra radius per unit of depth behind the blocker
uniform sampler2DShadow u_occlusion_map;  // depth seen from straight above
uniform vec3 u_occlusion_params;  // x, y: reach in texture units; z: least occluder height (depth units)
uniform float u_occlusion_strength;
uniform vec2 u_resolution;     // image size (px)
uniform vec3 u_bg_top;
uniform vec3 u_bg_bottom;
uniform float u_vignette;

// 16 points of a Poisson disk: the penumbra filter's taps (each one a bilinear 2x2 comparison).
const vec2 POISSON[16] = vec2[](
    vec2(-0.94201624, -0.39906216), vec2(0.94558609, -0.76890725),
    vec2(-0.09418410, -0.92938870), vec2(0.34495938, 0.29387760),
    vec2(-0.91588581, 0.45771432), vec2(-0.81544232, -0.87912464),
    vec2(-0.38277543, 0.27676845), vec2(0.97484398, 0.75648379),
    vec2(0.44323325, -0.97511554), vec2(0.53742981, -0.47373420),
    vec2(-0.26496911, -0.41893023), vec2(0.79197514, 0.19090188),
    vec2(-0.24188840, 0.99706507), vec2(-0.81409955, 0.91437590),
    vec2(0.19984126, 0.78641367), vec2(0.14383161, -0.14100790));

float hash12(vec2 p) {
    vec3 q = fract(vec3(p.xyx) * 0.1031);
    q += dot(q, q.yzx + 33.33);
    return fract((q.x + q.y) * q.z);
}

// Soft shadows whose penumbra widens with the distance from the blocker, as under a light of
// some size (percentage-closer soft shadows): first the mean depth of what blocks the light
// nearby, then a filter as wide as the penumbra there. The taps turn from pixel to pixel, so a
// wide penumbra is a fine grain rather than stacked copies of the edge.
float lit_fraction(vec4 coord) {
    vec3 p = coord.xyz / coord.w;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) {
        return 1.0;  // outside the light's view: nothing casts a shadow there
    }
    float ref = p.z - u_shadow_params.z;
    float a = 6.2831853 * hash12(gl_FragCoord.xy);
    mat2 turn = mat2(cos(a), sin(a), -sin(a), cos(a));
    float blockers = 0.0;
    float depth = 0.0;
    for (int i = 0; i < 16; ++i) {
        float d = texture(u_shadow_depth, p.xy + turn * POISSON[i] * u_shadow_params.y).r;
        if (d < ref) {
            blockers += 1.0;
            depth += d;
        }
    }
    if (blockers == 0.0) {
        return 1.0;
    }
    float radius = max(u_shadow_params.x, (ref - depth / blockers) * u_shadow_params.w);
    radius = min(radius, u_shadow_params.y);
    float sum = 0.0;
    for (int i = 0; i < 16; ++i) {
        sum += texture(u_shadow_map, vec3(p.xy + turn * POISSON[i] * radius, ref));
    }
    return sum / 16.0;
}

// How much of the neighbourhood of an upward-facing point is covered by something above it
// (contact occlusion: the soft dark rim at the foot of a block, around a board's edge).
float occlusion(vec4 coord) {
    vec3 p = coord.xyz / coord.w;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0) {
        return 0.0;
    }
    float open = 0.0;
    for (int i = 0; i < 16; ++i) {
        open += texture(u_occlusion_map, vec3(p.xy + POISSON[i] * u_occlusion_params.xy,
                                              p.z - u_occlusion_params.z));
    }
    return smoothstep(0.0, 0.6, 1.0 - open / 16.0);  // at the very foot of a wall (half covered): full
}

vec3 backdrop(vec2 frag) {
    vec2 uv = frag / u_resolution;
    vec3 c = mix(u_bg_bottom, u_bg_top, smoothstep(0.0, 1.0, uv.y));
    float d = length((uv - 0.5) * vec2(u_resolution.x / u_resolution.y, 1.0));
    c *= 1.0 - u_vignette * smoothstep(0.3, 0.95, d);
    return c + (hash12(frag) - 0.5) / 255.0;  // dither: no banding in the gradient
}

vec3 to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

vec3 to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
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

void main() {
    vec4 world = p3d_ModelMatrix * p3d_Vertex;
    vec3 n = normalize(mat3(p3d_ModelMatrix) * p3d_Normal);
    v_world = world.xyz;
    v_normal = n;
    v_local = p3d_Vertex.xyz;
    v_color = p3d_Color;
    v_shadow = u_shadow_matrix * vec4(world.xyz + n * u_normal_offset, 1.0);
    v_occlusion = u_occlusion_matrix * world;
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

PIECE_FRAGMENT = VERSION + _COMMON + """
uniform vec3 u_eye;
uniform vec3 u_key_dir;
uniform vec3 u_key_color;
uniform vec3 u_fill_dir;
uniform vec3 u_fill_color;
uniform vec3 u_sky;
uniform vec3 u_ground;
uniform vec4 u_finish;  // specular, shininess, grain, fibre
uniform vec4 u_grain;   // xyz: where the piece was cut from the log (mm); w: sheen
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec4 v_color;
in vec4 v_shadow;
in vec4 v_occlusion;
out vec4 frag_color;

float hash13(vec3 p) {
    p = fract(p * 0.1031);
    p += dot(p, p.zyx + 31.32);
    return fract((p.x + p.y) * p.z);
}

float value_noise(vec3 p) {
    vec3 i = floor(p);
    vec3 f = fract(p);
    vec3 u = f * f * (3.0 - 2.0 * f);
    return mix(mix(mix(hash13(i), hash13(i + vec3(1, 0, 0)), u.x),
                   mix(hash13(i + vec3(0, 1, 0)), hash13(i + vec3(1, 1, 0)), u.x), u.y),
               mix(mix(hash13(i + vec3(0, 0, 1)), hash13(i + vec3(1, 0, 1)), u.x),
                   mix(hash13(i + vec3(0, 1, 1)), hash13(i + vec3(1, 1, 1)), u.x), u.y), u.z);
}

// Beech: growth rings of a log whose axis runs along the piece's x (its length), seen as
// fine stripes on the long faces and arcs on the ends, with fibres and small dark rays.
float wood(vec3 p) {
    vec3 q = p + vec3(u_grain.x, 0.0, 0.0);
    float wobble = value_noise(q * vec3(0.035, 0.22, 0.22)) + 0.5 * value_noise(q * vec3(0.08, 0.5, 0.5));
    float r = length(q.yz + u_grain.yz) + 2.2 * wobble;
    float ring = fract(r / 2.4);
    float late = smoothstep(0.55, 0.9, ring) * (1.0 - smoothstep(0.9, 1.0, ring));
    float fibre = value_noise(q * vec3(0.05, 2.2, 2.2));
    float rays = smoothstep(0.78, 0.95, value_noise(q * vec3(0.9, 0.35, 3.0)));
    return 1.0 - 0.11 * late - 0.07 * (fibre - 0.5) - 0.05 * rays;
}

float paper(vec3 p) {
    return 1.0 + 0.04 * (value_noise(p * 0.6) - 0.5) + 0.02 * (value_noise(p * 1.7) - 0.5);
}

vec3 shoulder(vec3 c) {  // keep colours up to 0.8, roll highlights off smoothly towards 1
    vec3 over = max(c - 0.8, 0.0);
    return min(c, 0.8) + over / (1.0 + over / 0.2);
}

void main() {
    vec3 albedo = to_linear(v_color.rgb);
    vec3 mm = v_local * 1000.0;
    if (u_finish.z > 0.0) {
        albedo *= mix(1.0, wood(mm), u_finish.z);
    }
    if (u_finish.w > 0.0) {
        albedo *= mix(1.0, paper(mm), u_finish.w);
    }
    vec3 n = normalize(v_normal) * (gl_FrontFacing ? 1.0 : -1.0);
    vec3 v = normalize(u_eye - v_world);
    float shade = lit_fraction(v_shadow);
    float ndl = max(dot(n, u_key_dir), 0.0);
    float occluded = u_occlusion_strength * occlusion(v_occlusion) * smoothstep(0.3, 0.9, n.z);
    vec3 ambient = mix(u_ground, u_sky, 0.5 + 0.5 * n.z);
    vec3 light = u_key_color * ndl * shade * (1.0 - 0.4 * occluded)
        + (u_fill_color * max(dot(n, u_fill_dir), 0.0) + ambient) * (1.0 - occluded);
    vec3 c = albedo * light;
    vec3 h = normalize(u_key_dir + v);
    c += u_key_color * (u_finish.x * pow(max(dot(n, h), 0.0), u_finish.y) * ndl * shade);
    float fresnel = pow(1.0 - max(dot(n, v), 0.0), 5.0);
    vec3 sky = mix(u_ground, u_sky, 0.5 + 0.5 * reflect(-v, n).z) * 2.0;
    c += u_grain.w * fresnel * sky;
    frag_color = vec4(to_srgb(shoulder(c)), 1.0);
}
"""

FLOOR_VERTEX = PIECE_VERTEX

FLOOR_FRAGMENT = VERSION + _COMMON + """
uniform float u_transparent;      // 1: write the shadow as coverage over a transparent background
uniform float u_shadow_strength;  // darkening in full shadow
in vec4 v_shadow;
in vec4 v_occlusion;
out vec4 frag_color;

void main() {
    float shadow = u_shadow_strength * (1.0 - lit_fraction(v_shadow));
    float dark = 1.0 - (1.0 - shadow) * (1.0 - u_occlusion_strength * occlusion(v_occlusion));
    if (u_transparent > 0.5) {
        frag_color = vec4(0.0, 0.0, 0.0, dark);
    } else {
        frag_color = vec4(backdrop(gl_FragCoord.xy) * (1.0 - dark), 1.0);
    }
}
"""

BACKDROP_VERTEX = VERSION + """
in vec4 p3d_Vertex;

void main() {
    gl_Position = vec4(p3d_Vertex.xy, 0.999999, 1.0);  // a full-screen quad behind everything
}
"""

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
