// ALU only: fractal value noise, cb0[0].y octaves (a loop) of bilinear
// value noise with a smoothstep fade over an integer hash of the four cell
// corners; p starts at uv * cb0[0].x, each octave doubles the frequency
// (p = p * 2.03 + (1.7, 9.2)) and halves the amplitude (first 0.5).
// Output (n, n * n, 1 - n, 1). Only exactly defined operations (integer
// hash, floor, add, mul, mad, utof), so the native baseline matches bit
// for bit.
ps_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
dcl_temps 6
mul r0.xy, v1.xyxx, cb0[0].xxxx
mov r5.xyz, l(0.0, 0.5, 0.0, 0.0)
mov r5.w, l(0)
loop
  uge r1.z, r5.w, cb0[0].y
  breakc_nz r1.z
  round_ni r1.xy, r0.xyxx
  add r0.zw, r0.xxxy, -r1.xxxy
  ftoi r1.xy, r1.xyxx
  iadd r2.xyzw, r1.xxxx, l(0, 1, 0, 1)
  iadd r3.xyzw, r1.yyyy, l(0, 0, 1, 1)
  imad r3.xyzw, r3.xyzw, l(668265263, 668265263, 668265263, 668265263), l(0, 0, 0, 0)
  imad r2.xyzw, r2.xyzw, l(374761393, 374761393, 374761393, 374761393), r3.xyzw
  ushr r3.xyzw, r2.xyzw, l(13, 13, 13, 13)
  xor r2.xyzw, r2.xyzw, r3.xyzw
  imad r2.xyzw, r2.xyzw, l(1274126177, 1274126177, 1274126177, 1274126177), l(0, 0, 0, 0)
  ushr r3.xyzw, r2.xyzw, l(16, 16, 16, 16)
  xor r2.xyzw, r2.xyzw, r3.xyzw
  ushr r2.xyzw, r2.xyzw, l(8, 8, 8, 8)
  utof r2.xyzw, r2.xyzw
  mul r2.xyzw, r2.xyzw, l(0.000000059604645, 0.000000059604645, 0.000000059604645, 0.000000059604645)
  mad r3.xy, r0.zwzz, l(-2.0, -2.0, 0.0, 0.0), l(3.0, 3.0, 0.0, 0.0)
  mul r3.xy, r3.xyxx, r0.zwzz
  mul r3.xy, r3.xyxx, r0.zwzz
  add r4.xy, r2.ywyy, -r2.xzxx
  mad r4.xy, r4.xyxx, r3.xxxx, r2.xzxx
  add r4.y, r4.y, -r4.x
  mad r4.x, r4.y, r3.y, r4.x
  mad r5.x, r4.x, r5.y, r5.x
  mul r5.y, r5.y, l(0.5)
  mad r0.xy, r0.xyxx, l(2.03, 2.03, 0.0, 0.0), l(1.7, 9.2, 0.0, 0.0)
  iadd r5.w, r5.w, l(1)
endloop
mov o0.x, r5.x
mul o0.y, r5.x, r5.x
add o0.z, -r5.x, l(1.0)
mov o0.w, l(1.0)
ret
