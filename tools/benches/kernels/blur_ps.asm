// 9-tap blur: a 3x3 filter over t0 (RGBA8, the size of the render target,
// one mip, so every tap lands on a texel centre) with immediate texel
// offsets; weights in cb0[0].xyzw, cb0[1].xyzw, cb0[2].x in the order
// (-1,-1) (0,-1) (1,-1) (-1,0) (0,0) (1,0) (-1,1) (0,1) (1,1).
ps_5_0
dcl_constantbuffer CB0[3], immediateIndexed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 2
sample_aoffimmi(-1,-1,0) r0.xyzw, v1.xyxx, t0.xyzw, s0
mul r0.xyzw, r0.xyzw, cb0[0].xxxx
sample_aoffimmi(0,-1,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[0].yyyy, r0.xyzw
sample_aoffimmi(1,-1,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[0].zzzz, r0.xyzw
sample_aoffimmi(-1,0,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[0].wwww, r0.xyzw
sample r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[1].xxxx, r0.xyzw
sample_aoffimmi(1,0,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[1].yyyy, r0.xyzw
sample_aoffimmi(-1,1,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[1].zzzz, r0.xyzw
sample_aoffimmi(0,1,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad r0.xyzw, r1.xyzw, cb0[1].wwww, r0.xyzw
sample_aoffimmi(1,1,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mad o0.xyzw, r1.xyzw, cb0[2].xxxx, r0.xyzw
ret
