// Mandelbrot: one pixel per thread, the escape iteration count as a u32.
// cb0[0] = (width, height, max_iter, 0); cb0[1] = (x0, y0, dx, dy) as f32.
// u0 = raw output, word y * width + x. The loop is divergent and ALU-bound.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[2], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.xy
dcl_temps 4
dcl_thread_group 8, 8, 1
uge r0.xy, vThreadID.xyxx, cb0[0].xyxx
or r0.x, r0.x, r0.y
if_nz r0.x
  ret
endif
utof r0.xy, vThreadID.xyxx
mad r0.z, r0.x, cb0[1].z, cb0[1].x
mad r0.w, r0.y, cb0[1].w, cb0[1].y
mov r1.xyz, l(0, 0, 0, 0)
loop
  uge r2.x, r1.z, cb0[0].z
  breakc_nz r2.x
  mul r2.y, r1.x, r1.x
  mul r2.z, r1.y, r1.y
  add r2.w, r2.y, r2.z
  lt r2.x, l(4.000000), r2.w
  breakc_nz r2.x
  add r3.x, r1.x, r1.x
  mad r1.y, r3.x, r1.y, r0.w
  add r3.y, r2.y, -r2.z
  add r1.x, r3.y, r0.z
  iadd r1.z, r1.z, l(1)
endloop
imad r0.x, vThreadID.y, cb0[0].x, vThreadID.x
ishl r0.x, r0.x, l(2)
store_raw u0.x, r0.x, r1.z
ret
