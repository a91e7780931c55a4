// Shadow filtering: 16 `sample_c` of an R32_FLOAT shadow map (t0, one
// mip) through a comparison sampler (s0: bilinear, LESS_EQUAL, clamp), so
// each tap is a 2x2 bilinear PCF; the result is their mean. Shadow-map
// coordinates uv * cb0[0].xy + cb0[0].zw; the receiver's depth
// dot(uv, cb0[1].xy) + cb0[1].z; the 16 tap offsets (in shadow-map uv,
// a 4x4 grid) in cb0[2..9].xy and .zw. Offsets come from the constant
// buffer, not `_aoffimmi`: vkd3d 1.2 drops immediate offsets on `sample_c`
// ("Texel offset not supported"), and the peer must draw the same thing.
ps_5_0
dcl_constantbuffer CB0[10], immediateIndexed
dcl_sampler s0, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 4
mad r0.xy, v1.xyxx, cb0[0].xyxx, cb0[0].zwzz
dp2 r0.z, v1.xyxx, cb0[1].xyxx
add r0.z, r0.z, cb0[1].z
add r1.xy, r0.xyxx, cb0[2].xyxx
sample_c r2.x, r1.xyxx, t0.xxxx, s0, r0.z
add r1.xy, r0.xyxx, cb0[2].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[3].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[3].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[4].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[4].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[5].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[5].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[6].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[6].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[7].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[7].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[8].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[8].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[9].xyxx
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
add r1.xy, r0.xyxx, cb0[9].zwzz
sample_c r3.x, r1.xyxx, t0.xxxx, s0, r0.z
add r2.x, r2.x, r3.x
mul r2.x, r2.x, l(0.0625)
mov o0.xyz, r2.xxxx
mov o0.w, l(1.0)
ret
