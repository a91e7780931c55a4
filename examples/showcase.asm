cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[2], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadID.xy
dcl_temps 4
dcl_thread_group 8, 8, 1
uge r0.xy, vThreadID.xyxx, cb0[0].xyxx
or r0.x, r0.y, r0.x
if_nz r0.x
  ret
endif
utof r0.xy, vThreadID.xyxx
mad r0.xy, r0.xyxx, cb0[1].zwzz, cb0[1].xyxx
mov r1.xyz, l(0,0,0,0)
loop
  uge r1.w, r1.z, cb0[0].z
  breakc_nz r1.w
  mul r2.xy, r1.xyxx, r1.xyxx
  add r2.z, r2.y, r2.x
  lt r2.w, l(4.000000), r2.z
  breakc_nz r2.w
  mul r3.x, r1.y, r1.x
  add r2.x, r2.x, -r2.y
  add r1.x, r2.x, r0.x
  mad r1.y, r3.x, l(2.000000), r0.y
  iadd r1.z, r1.z, l(1)
endloop
imad r0.z, vThreadID.y, cb0[0].x, vThreadID.x
ishl r0.z, r0.z, l(2)
store_raw u0.x, r0.z, r1.z
ret
