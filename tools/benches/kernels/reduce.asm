// Parallel sum reduction: each group of 256 threads sums 256 u32 words of
// t0 (raw) in TGSM with a barrier per halving step; thread 0 writes the
// group's sum (wrapping) to word group_id of u0 (raw).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadGroupID.x
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 256
dcl_thread_group 256, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.x, r0.x, t0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.x
sync_g_t
mov r0.y, l(128)
loop
  ieq r0.z, r0.y, l(0)
  breakc_nz r0.z
  ult r0.z, vThreadIDInGroupFlattened.x, r0.y
  if_nz r0.z
    iadd r0.w, vThreadIDInGroupFlattened.x, r0.y
    ld_structured r1.x, vThreadIDInGroupFlattened.x, l(0), g0.xxxx
    ld_structured r1.y, r0.w, l(0), g0.xxxx
    iadd r1.x, r1.x, r1.y
    store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r1.x
  endif
  sync_g_t
  ushr r0.y, r0.y, l(1)
endloop
if_z vThreadIDInGroupFlattened.x
  ld_structured r1.x, l(0), l(0), g0.xxxx
  ishl r0.x, vThreadGroupID.x, l(2)
  store_raw u0.x, r0.x, r1.x
endif
ret
