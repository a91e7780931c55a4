// Shadow filtering: 16 `sample_c` (4x4 texel offsets -2..1) of an R32_FLOAT
// shadow map (t0, one mip) through a comparison sampler (s0: bilinear,
// LESS_EQUAL, clamp), so each tap is a 2x2 bilinear PCF; the result is
// their mean. Shadow-map coordinates uv * cb0[0].xy + cb0[0].zw; the
// receiver's depth dot(uv, cb0[1].xy) + cb0[1].z.
ps_5_0
dcl_constantbuffer CB0[2], immediateIndexed
dcl_sampler s0, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 3
mad r0.xy, v1.xyxx, cb0[0].xyxx, cb0[0].zwzz
dp2 r0.z, v1.xyxx, cb0[1].xyxx
add r0.z, r0.z, cb0[1].z
sample_c_aoffimmi(-2,-2,0) r1.x, r0.xyxx, t0.xxxx, s0, r0.z
sample_c_aoffimmi(-1,-2,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(0,-2,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(1,-2,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-2,-1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-1,-1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(0,-1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(1,-1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-2,0,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-1,0,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(1,0,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-2,1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(-1,1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(0,1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
sample_c_aoffimmi(1,1,0) r2.x, r0.xyxx, t0.xxxx, s0, r0.z
add r1.x, r1.x, r2.x
mul r1.x, r1.x, l(0.0625)
mov o0.xyz, r1.xxxx
mov o0.w, l(1.0)
ret
