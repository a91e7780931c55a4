cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 1, 3, 1
mov r0.y, vThreadIDInGroupFlattened.x
mov r1.x, l(0)
loop
  iadd r1.x, r1.x, l(1)
  and r3.w, r0.y, l(3)
  iadd r0.y, r0.y, l(1)
  continuec_nz r3.w
  break
endloop
ishl r2.x, vThreadIDInGroupFlattened.x, l(2)
store_raw u0.x, r2.x, r1.x
ret
