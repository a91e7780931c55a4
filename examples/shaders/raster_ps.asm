// The rasterizer example's pixel shader (examples/rasterizer.rs): a
// normal-mapped, textured surface lit by two directional lights.
// t0: albedo, t1: tangent-space normal map (both mipmapped, sampled
// trilinearly through s0 with the LOD from the quad). cb0[0]: camera
// position (xyz), specular exponent (w); cb0[1]: ambient colour;
// cb0[2], cb0[4]: direction towards each light (unit); cb0[3], cb0[5]:
// each light's colour. In (from raster_vs.asm): v1 world normal, v2
// world tangent (w: bitangent sign), v3 texture coordinates, v4 world
// position. Out: o0 the linear colour, alpha 1.
ps_5_0
dcl_constantbuffer CB0[6], immediateIndexed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_input_ps linear v1.xyz
dcl_input_ps linear v2.xyzw
dcl_input_ps linear v3.xy
dcl_input_ps linear v4.xyz
dcl_output o0.xyzw
dcl_temps 8
// N = normalize(v1)
dp3 r0.w, v1.xyzx, v1.xyzx
rsq r0.w, r0.w
mul r0.xyz, r0.wwww, v1.xyzx
// T = normalize(v2 - N dot(N, v2))
dp3 r1.w, r0.xyzx, v2.xyzx
mad r1.xyz, -r0.xyzx, r1.wwww, v2.xyzx
dp3 r1.w, r1.xyzx, r1.xyzx
rsq r1.w, r1.w
mul r1.xyz, r1.wwww, r1.xyzx
// B = cross(N, T) * sign
mul r2.xyz, r0.zxyz, r1.yzxy
mad r2.xyz, r0.yzxy, r1.zxyz, -r2.xyzx
mul r2.xyz, r2.xyzx, v2.wwww
// The normal from the map, to world space.
sample r3.xyzw, v3.xyxx, t1.xyzw, s0
mad r3.xyz, r3.xyzx, l(2.0, 2.0, 2.0, 0.0), l(-1.0, -1.0, -1.0, 0.0)
mul r4.xyz, r1.xyzx, r3.xxxx
mad r4.xyz, r2.xyzx, r3.yyyy, r4.xyzx
mad r4.xyz, r0.xyzx, r3.zzzz, r4.xyzx
dp3 r4.w, r4.xyzx, r4.xyzx
rsq r4.w, r4.w
mul r4.xyz, r4.wwww, r4.xyzx
// V = normalize(camera - position)
add r5.xyz, cb0[0].xyzx, -v4.xyzx
dp3 r5.w, r5.xyzx, r5.xyzx
rsq r5.w, r5.w
mul r5.xyz, r5.wwww, r5.xyzx
// Albedo and ambient.
sample r6.xyzw, v3.xyxx, t0.xyzw, s0
mul r7.xyz, r6.xyzx, cb0[1].xyzx
// Light 1: Lambert plus Blinn-Phong.
dp3_sat r0.w, r4.xyzx, cb0[2].xyzx
mul r1.xyz, r6.xyzx, cb0[3].xyzx
mad r7.xyz, r1.xyzx, r0.wwww, r7.xyzx
add r1.xyz, r5.xyzx, cb0[2].xyzx
dp3 r1.w, r1.xyzx, r1.xyzx
rsq r1.w, r1.w
mul r1.xyz, r1.wwww, r1.xyzx
dp3_sat r1.w, r4.xyzx, r1.xyzx
log r1.w, r1.w
mul r1.w, r1.w, cb0[0].w
exp r1.w, r1.w
mad r7.xyz, cb0[3].xyzx, r1.wwww, r7.xyzx
// Light 2.
dp3_sat r0.w, r4.xyzx, cb0[4].xyzx
mul r1.xyz, r6.xyzx, cb0[5].xyzx
mad r7.xyz, r1.xyzx, r0.wwww, r7.xyzx
add r1.xyz, r5.xyzx, cb0[4].xyzx
dp3 r1.w, r1.xyzx, r1.xyzx
rsq r1.w, r1.w
mul r1.xyz, r1.wwww, r1.xyzx
dp3_sat r1.w, r4.xyzx, r1.xyzx
log r1.w, r1.w
mul r1.w, r1.w, cb0[0].w
exp r1.w, r1.w
mad r7.xyz, cb0[5].xyzx, r1.wwww, r7.xyzx
mov o0.xyz, r7.xyzx
mov o0.w, l(1.0)
ret
