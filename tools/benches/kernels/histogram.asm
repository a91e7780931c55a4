// Histogram: each thread takes one u32 word of t0 (raw) and adds 1 to bin
// (word & 255) of u0 (raw, 256 words) with atomic_iadd.
// cb0[0].x = number of input words.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_raw t0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 64, 1, 1
uge r0.x, vThreadID.x, cb0[0].x
if_nz r0.x
  ret
endif
ishl r0.x, vThreadID.x, l(2)
ld_raw r0.x, r0.x, t0.xxxx
and r0.x, r0.x, l(255)
ishl r0.x, r0.x, l(2)
atomic_iadd u0, r0.x, l(1)
ret
