// A pixel shader of about 900 instructions for compile-time measurements
// (examples/compile_times.rs): nine blocks of a six-iteration loop sampling
// two textures, ALU chains (mad, dp3, rsq, min/max, frc) and an if/else
// with a dependent sample.
ps_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[8], immediateIndexed
dcl_sampler s0, mode_default
dcl_sampler s1, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_input_ps linear v0.xy
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
dcl_temps 8
mov r0.xyzw, l(0, 0, 0, 0)
mov r1.xy, v0.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[0].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.50)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.51)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.52)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.53)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.54)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.55)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.56)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.57)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[0].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[1].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.58)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.59)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.60)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.61)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.62)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.63)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.64)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.65)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[1].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[2].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.66)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.67)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.68)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.69)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.70)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.71)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.72)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.73)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[2].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[3].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.74)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.75)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.76)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.77)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.78)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.79)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.80)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.81)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[3].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[4].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.82)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.83)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.84)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.85)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.86)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.87)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.88)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.89)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[4].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[5].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.90)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.91)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.92)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.93)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.94)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.95)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(0.96)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(0.97)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[5].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[6].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(0.98)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(0.99)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.00)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.01)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(1.02)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(1.03)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.04)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.05)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[6].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[7].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(1.06)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(1.07)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.08)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.09)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(1.10)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(1.11)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.12)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.13)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[7].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov r4.x, l(0)
loop
  uge r4.y, r4.x, l(6)
  breakc_nz r4.y
  utof r4.z, r4.x
  mad r5.xy, r4.zzzz, cb0[0].xyxx, r1.xyxx
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r5.xyxx, t0.xyzw, s0
  mad r0.xyzw, r6.xyzw, l(0.1, 0.1, 0.1, 0.1), r0.xyzw
  sample_l_indexable(texture2d)(float,float,float,float) r7.xyzw, r5.yxyy, t1.xyzw, s1, l(1.0)
  dp4 r7.x, r7.xyzw, r6.xyzw
  add r0.x, r0.x, r7.x
  iadd r4.x, r4.x, l(1)
endloop
mad r2.xyzw, r0.xyzw, cb0[0].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[1].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(1.14)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[1].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[2].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(1.15)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[2].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[3].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.16)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[3].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[4].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.17)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[4].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[5].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.x, r0.x, r2.x
mul r3.z, r2.w, l(1.18)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[5].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[6].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.y, r0.y, r2.y
mul r3.z, r2.w, l(1.19)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[6].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[7].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.z, r0.z, r2.z
mul r3.z, r2.w, l(1.20)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
mad r2.xyzw, r0.xyzw, cb0[7].xyzw, v1.xyzw
dp3 r3.x, r2.xyzx, cb0[0].xyzx
max r3.y, |r3.x|, l(0.0001)
rsq r3.y, r3.y
mul r2.xyz, r2.xyzx, r3.yyyy
min r2.xyz, r2.xyzx, l(4.0, 4.0, 4.0, 0)
add r0.w, r0.w, r2.w
mul r3.z, r2.w, l(1.21)
frc r3.z, r3.z
add r0.w, r0.w, r3.z
lt r4.w, r0.x, cb0[0].w
if_nz r4.w
  sample_indexable(texture2d)(float,float,float,float) r6.xyzw, r0.zwzz, t1.xyzw, s0
  mul r0.xyzw, r0.xyzw, r6.xyzw
  exp r0.y, r0.y
else
  log r6.x, |r0.x|
  mad r0.xyzw, r0.xyzw, l(0.5, 0.25, 0.125, 1.0), r6.xxxx
endif
mad r1.xy, r0.xyxx, l(0.01, 0.01, 0, 0), r1.xyxx
mov_sat o0.xyzw, r0.xyzw
ret
