// Textured and lit: albedo (t0) and tangent-space normal map (t1), both
// RGBA8 with full mip chains, trilinear and wrapped (s0), on the plane
// z = 0 seen from cb0[2].xyz; ambient plus three lights (cb0[3..5]:
// position with w = 1 for a point light, direction towards the light with
// w = 0 for a directional one; cb0[6..8]: colour rgb, specular strength
// w), Lambert diffuse plus Blinn-Phong specular.
// cb0[0] = (tile u, tile v, plane width, plane height)
// cb0[1] = (plane x0, plane y0, specular power, ambient)
// cb0[2] = (camera xyz, attenuation k)
ps_5_0
dcl_constantbuffer CB0[9], immediateIndexed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 8
mul r0.xy, v1.xyxx, cb0[0].xyxx
sample r1.xyzw, r0.xyxx, t0.xyzw, s0
sample r2.xyzw, r0.xyxx, t1.xyzw, s0
mad r2.xyz, r2.xyzx, l(2.0, 2.0, 2.0, 0.0), l(-1.0, -1.0, -1.0, 0.0)
dp3 r0.z, r2.xyzx, r2.xyzx
rsq r0.z, r0.z
mul r2.xyz, r0.zzzz, r2.xyzx
mad r3.xy, v1.xyxx, cb0[0].zwzz, cb0[1].xyxx
mov r3.z, l(0.0)
add r4.xyz, -r3.xyzx, cb0[2].xyzx
dp3 r0.z, r4.xyzx, r4.xyzx
rsq r0.z, r0.z
mul r4.xyz, r0.zzzz, r4.xyzx
mul r5.xyz, r1.xyzx, cb0[1].wwww
// light 0
mad r6.xyz, -r3.xyzx, cb0[3].wwww, cb0[3].xyzx
dp3 r0.z, r6.xyzx, r6.xyzx
rsq r0.w, r0.z
mul r6.xyz, r0.wwww, r6.xyzx
mul r0.z, r0.z, cb0[3].w
mad r0.z, r0.z, cb0[2].w, l(1.0)
div r0.z, l(1.0), r0.z
dp3_sat r0.w, r2.xyzx, r6.xyzx
add r6.xyz, r4.xyzx, r6.xyzx
dp3 r7.x, r6.xyzx, r6.xyzx
rsq r7.x, r7.x
mul r6.xyz, r6.xyzx, r7.xxxx
dp3_sat r7.x, r2.xyzx, r6.xyzx
log r7.x, r7.x
mul r7.x, r7.x, cb0[1].z
exp r7.x, r7.x
mul r7.x, r7.x, cb0[6].w
mad r6.xyz, r1.xyzx, r0.wwww, r7.xxxx
mul r6.xyz, r6.xyzx, cb0[6].xyzx
mad r5.xyz, r6.xyzx, r0.zzzz, r5.xyzx
// light 1
mad r6.xyz, -r3.xyzx, cb0[4].wwww, cb0[4].xyzx
dp3 r0.z, r6.xyzx, r6.xyzx
rsq r0.w, r0.z
mul r6.xyz, r0.wwww, r6.xyzx
mul r0.z, r0.z, cb0[4].w
mad r0.z, r0.z, cb0[2].w, l(1.0)
div r0.z, l(1.0), r0.z
dp3_sat r0.w, r2.xyzx, r6.xyzx
add r6.xyz, r4.xyzx, r6.xyzx
dp3 r7.x, r6.xyzx, r6.xyzx
rsq r7.x, r7.x
mul r6.xyz, r6.xyzx, r7.xxxx
dp3_sat r7.x, r2.xyzx, r6.xyzx
log r7.x, r7.x
mul r7.x, r7.x, cb0[1].z
exp r7.x, r7.x
mul r7.x, r7.x, cb0[7].w
mad r6.xyz, r1.xyzx, r0.wwww, r7.xxxx
mul r6.xyz, r6.xyzx, cb0[7].xyzx
mad r5.xyz, r6.xyzx, r0.zzzz, r5.xyzx
// light 2
mad r6.xyz, -r3.xyzx, cb0[5].wwww, cb0[5].xyzx
dp3 r0.z, r6.xyzx, r6.xyzx
rsq r0.w, r0.z
mul r6.xyz, r0.wwww, r6.xyzx
mul r0.z, r0.z, cb0[5].w
mad r0.z, r0.z, cb0[2].w, l(1.0)
div r0.z, l(1.0), r0.z
dp3_sat r0.w, r2.xyzx, r6.xyzx
add r6.xyz, r4.xyzx, r6.xyzx
dp3 r7.x, r6.xyzx, r6.xyzx
rsq r7.x, r7.x
mul r6.xyz, r6.xyzx, r7.xxxx
dp3_sat r7.x, r2.xyzx, r6.xyzx
log r7.x, r7.x
mul r7.x, r7.x, cb0[1].z
exp r7.x, r7.x
mul r7.x, r7.x, cb0[8].w
mad r6.xyz, r1.xyzx, r0.wwww, r7.xxxx
mul r6.xyz, r6.xyzx, cb0[8].xyzx
mad r5.xyz, r6.xyzx, r0.zzzz, r5.xyzx
mov o0.xyz, r5.xyzx
mov o0.w, r1.w
ret
