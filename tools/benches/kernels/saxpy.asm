// saxpy: y[i] = a * x[i] + y[i] over structured buffers of f32.
// cb0[0].x = a (f32 bits), cb0[0].y = n; t0 = x, u0 = y (stride 4).
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[1], immediateIndexed
dcl_resource_structured t0, 4
dcl_uav_structured u0, 4
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 64, 1, 1
uge r0.x, vThreadID.x, cb0[0].y
if_nz r0.x
  ret
endif
ld_structured r0.x, vThreadID.x, l(0), t0.xxxx
ld_structured r0.y, vThreadID.x, l(0), u0.xxxx
mad r0.x, cb0[0].x, r0.x, r0.y
store_structured u0.x, vThreadID.x, l(0), r0.x
ret
