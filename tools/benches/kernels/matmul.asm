// C = A * B for n x n row-major f32 matrices (n a multiple of 16), in
// 16x16 tiles staged through TGSM. t0 = A, t1 = B, u0 = C (structured,
// stride 4); cb0[0].x = n. Each thread accumulates one element of C with
// mad over k = 0..n in order.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_resource_structured t1, 4
dcl_uav_structured u0, 4
dcl_input vThreadIDInGroup.xy
dcl_input vThreadID.xy
dcl_temps 4
dcl_tgsm_structured g0, 4, 256
dcl_tgsm_structured g1, 4, 256
dcl_thread_group 16, 16, 1
imad r0.x, vThreadIDInGroup.y, l(16), vThreadIDInGroup.x
mov r0.y, l(0)
mov r0.z, l(0)
loop
  uge r0.w, r0.z, cb0[0].x
  breakc_nz r0.w
  iadd r1.x, r0.z, vThreadIDInGroup.x
  imad r1.x, vThreadID.y, cb0[0].x, r1.x
  ld_structured r1.x, r1.x, l(0), t0.xxxx
  store_structured g0.x, r0.x, l(0), r1.x
  iadd r1.y, r0.z, vThreadIDInGroup.y
  imad r1.y, r1.y, cb0[0].x, vThreadID.x
  ld_structured r1.y, r1.y, l(0), t1.xxxx
  store_structured g1.x, r0.x, l(0), r1.y
  sync_g_t
  ishl r2.x, vThreadIDInGroup.y, l(4)
  mov r2.y, vThreadIDInGroup.x
  mov r2.z, l(0)
  loop
    uge r2.w, r2.z, l(16)
    breakc_nz r2.w
    iadd r3.x, r2.x, r2.z
    ld_structured r3.x, r3.x, l(0), g0.xxxx
    ld_structured r3.y, r2.y, l(0), g1.xxxx
    mad r0.y, r3.x, r3.y, r0.y
    iadd r2.y, r2.y, l(16)
    iadd r2.z, r2.z, l(1)
  endloop
  sync_g_t
  iadd r0.z, r0.z, l(16)
endloop
imad r0.x, vThreadID.y, cb0[0].x, vThreadID.x
store_structured u0.x, r0.x, l(0), r0.y
ret
