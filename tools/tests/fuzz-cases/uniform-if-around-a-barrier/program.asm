cs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_uav_raw u0
dcl_input vThreadIDInGroup.x
dcl_temps 2
dcl_tgsm_raw g0, 256
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadIDInGroup.x, l(2)
if_nz cb0[0].x
  store_raw g0.x, r0.x, vThreadIDInGroup.x
  sync_g_t
  xor r1.x, r0.x, l(4)
  ld_raw r1.x, r1.x, g0.xxxx
else
  mov r1.x, l(7)
endif
store_raw u0.x, r0.x, r1.x
ret
