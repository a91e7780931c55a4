// Inclusive prefix sum (Hillis-Steele) of each block of 256 u32 words of t0
// (raw) in TGSM: per step a read, a barrier, a write and a barrier. Word i
// of u0 (raw) = the wrapping sum of words block_start..=i.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 2
dcl_tgsm_structured g0, 4, 256
dcl_thread_group 256, 1, 1
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.y, r0.x, t0.xxxx
store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
sync_g_t
mov r0.z, l(1)
loop
  uge r0.w, r0.z, l(256)
  breakc_nz r0.w
  uge r0.w, vThreadIDInGroupFlattened.x, r0.z
  if_nz r0.w
    iadd r1.x, vThreadIDInGroupFlattened.x, -r0.z
    ld_structured r1.x, r1.x, l(0), g0.xxxx
    iadd r0.y, r0.y, r1.x
  endif
  sync_g_t
  store_structured g0.x, vThreadIDInGroupFlattened.x, l(0), r0.y
  sync_g_t
  ishl r0.z, r0.z, l(1)
endloop
store_raw u0.x, r0.x, r0.y
ret
