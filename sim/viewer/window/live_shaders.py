"""The live picture's shaders (GLSL 330): the pieces lit as the renderer lights them, summed and tone-mapped
per vertex with one filtered shadow look-up a pixel (:data:`VERTEX`, :data:`FRAGMENT`), the pieces drawn into
the depth buffer only behind the full-quality still (:data:`MASK_FRAGMENT`), and the floor that reaches only
as far as shadows fall (:data:`FLOOR_VERTEX`, :data:`FLOOR_FRAGMENT`, with ``TABLE`` defined for a table's
wood). :class:`sim.viewer.window.look.LiveLook` makes and sets them."""

VERTEX = """#version 330
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;
uniform mat4 u_shadow_matrix;
uniform vec2 u_shadow_bias;  // x: normal offset (m), y: depth bias (shadow map depth units)
uniform vec3 u_key_dir;
uniform vec3 u_key_color;
uniform vec3 u_fill_dir;
uniform vec3 u_fill_color;
uniform vec3 u_sky;
uniform vec3 u_ground;
uniform vec3 u_eye;
uniform vec4 u_finish;
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec4 p3d_Color;
in vec3 local;  // a box's vertex in its own frame (sim.viewer.window.livegeom.LOCAL); (0, 0, 0) for other pieces
out vec3 v_local;
out vec3 v_dark;  // the colour on screen where the key light is shadowed
out vec3 v_lit;   // and where it is not
out vec3 v_shadow;
vec3 shown(vec3 c) {  // the renderer's exposure and tone curve, then linear to sRGB (near enough)
    c *= 0.8;
    return sqrt(clamp(c * (2.51 * c + 0.03) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0));
}
void main() {
    vec4 world = p3d_ModelMatrix * p3d_Vertex;
    vec3 n = normalize(mat3(p3d_ModelMatrix) * p3d_Normal);
    v_local = local;
    vec3 c = p3d_Color.rgb;
    vec3 albedo = c * c;  // sRGB to linear, near enough for the live picture
    float ndl = max(dot(n, u_key_dir), 0.0);
    vec3 base = albedo * (u_fill_color * max(dot(n, u_fill_dir), 0.0) + mix(u_ground, u_sky, 0.5 + 0.5 * n.z));
    vec3 h = normalize(u_key_dir + normalize(u_eye - world.xyz));
    vec3 key = u_key_color * ndl * (albedo + u_finish.x * pow(max(dot(n, h), 0.0), u_finish.y));
    v_dark = shown(base);
    v_lit = shown(base + key);
    vec4 shadow = u_shadow_matrix * vec4(world.xyz + n * u_shadow_bias.x, 1.0);  // orthographic: w is 1
    v_shadow = vec3(shadow.xy, shadow.z - u_shadow_bias.y);
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

# Lit and tone-mapped per vertex, in and out of the key light's shadow (the pieces are flat-faced or
# finely tessellated): a pixel costs one shadow look-up and a mix of the two (and a box's eased edges).
# Tone-mapping each pixel, as before, cost llvmpipe a fifth of the picture on a Babylon city.
FRAGMENT = """#version 330
uniform sampler2DShadow u_live_shadow;
uniform vec4 u_bevel;
uniform vec4 u_tint;
in vec3 v_local;
in vec3 v_dark;
in vec3 v_lit;
in vec3 v_shadow;
out vec4 frag_color;
void main() {
    vec3 c = mix(v_dark, v_lit, texture(u_live_shadow, v_shadow));
    vec3 d = u_bevel.xyz - abs(v_local);  // eased edges of a box (u_bevel.w 1) read as separate pieces
    float edge = d.x + d.y + d.z - min(d.x, min(d.y, d.z)) - max(d.x, max(d.y, d.z));
    c *= sqrt(1.0 - 0.4 * u_bevel.w * (1.0 - smoothstep(0.0, 6e-4, edge)));  // 0.6 of the light, on screen
    frag_color = vec4(mix(c, u_tint.rgb, u_tint.a), 1.0);
}
"""

# While the full-quality picture shows: only the tinted pieces are drawn (translucent), every piece
# still fills the depth buffer so that the window's marks are hidden behind pieces.
MASK_FRAGMENT = """#version 330
uniform vec4 u_tint;
out vec4 frag_color;
void main() {
    frag_color = vec4(u_tint.rgb, 0.55 * u_tint.a);
}
"""

FLOOR_VERTEX = """#version 330
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelMatrix;
uniform mat4 u_shadow_matrix;
in vec4 p3d_Vertex;
out vec3 v_world;
out vec3 v_shadow;
void main() {
    vec4 world = p3d_ModelMatrix * p3d_Vertex;
    v_world = world.xyz;
    v_shadow = (u_shadow_matrix * world).xyz;  // orthographic: w is 1
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
}
"""

FLOOR_FRAGMENT = """#version 330
uniform sampler2DShadow u_live_shadow;
uniform vec3 u_floor_color;
uniform vec4 u_floor_grid;   // minor, major spacing (m), minor, major strength
uniform vec4 u_floor_fade;   // centre x, y, fade start, fade end (m)
uniform vec3 u_bg;
uniform float u_shadow_strength;
in vec3 v_world;
in vec3 v_shadow;
out vec4 frag_color;
void main() {
    float lit = texture(u_live_shadow, vec3(v_shadow.xy, v_shadow.z - 2e-4));
#ifndef TABLE  // a board's floor: the backdrop, darkened where shadows fall
    frag_color = vec4(u_bg * (1.0 - u_shadow_strength * (1.0 - lit)), 1.0);
#else  // the endless table: its grid, fading into the backdrop
    vec2 w = v_world.xy;
    vec2 fw = fwidth(w);
    vec2 a = abs(fract(w / u_floor_grid.x + 0.5) - 0.5) * u_floor_grid.x / fw;
    vec2 b = abs(fract(w / u_floor_grid.y + 0.5) - 0.5) * u_floor_grid.y / fw;
    float line = u_floor_grid.z * (1.0 - clamp(min(a.x, a.y), 0.0, 1.0))
        + u_floor_grid.w * (1.0 - clamp(min(b.x, b.y), 0.0, 1.0));
    vec3 c = sqrt(u_floor_color * (1.0 - line) * (1.0 - u_shadow_strength * (1.0 - lit)));
    float fade = smoothstep(u_floor_fade.z, u_floor_fade.w, length(w - u_floor_fade.xy));
    frag_color = vec4(mix(c, u_bg, fade), 1.0);
#endif
}
"""
