// N-body step from bgfx (examples/24-nbody/cs_update_instances.sc, commit
// 307cbbfbcbcf5e5296262ad1eb5dbc299bcac58f, as compiled by fxc and found in
// ../shared/corpus/realworld/bgfx_cs_update_instances), ported to the
// peer's binding model: the typed float4 buffers t0, t1, u2, u3 became
// structured buffers of stride 16 (ld_indexable(buffer) -> ld_structured,
// store_uav_typed -> store_structured); every other instruction is fxc's.
// t0 = previous positions, t1 = current positions (xyz, 16 bytes each),
// u2 = new previous positions, u3 = new current positions.
// cb0[0] = (time step, blocks of 512 bodies (int), softening, damping),
// cb0[2].z = maximum acceleration. The benchmark uses one block: with more,
// fxc's code races on g0 (no barrier between the inner loop's last read and
// the next block's store), so the result would depend on thread scheduling.
cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[3], immediateIndexed
dcl_resource_structured t0, 16
dcl_resource_structured t1, 16
dcl_uav_structured u2, 16
dcl_uav_structured u3, 16
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadID.x
dcl_temps 6
dcl_tgsm_structured g0, 12, 512
dcl_thread_group 512, 1, 1
ld_structured r0.xyz, vThreadID.x, l(0), t0.xyzw
ld_structured r1.xyz, vThreadID.x, l(0), t1.xyzw
mul r0.w, cb0[0].z, cb0[0].z
mov r2.xyzw, l(0,0,0,0)
loop
  ige r3.x, r2.w, cb0[0].y
  breakc_nz r3.x
  bfi r3.x, l(23), l(9), r2.w, vThreadIDInGroupFlattened.x
  ld_structured r3.xyz, r3.x, l(0), t1.xyzw
  store_structured g0.xyz, vThreadIDInGroupFlattened.x, l(0), r3.xyzx
  sync_g_t
  mov r3.xyz, r2.xyzx
  mov r3.w, l(0)
  loop
    ige r4.x, r3.w, l(512)
    breakc_nz r4.x
    ld_structured r4.xyz, r3.w, l(0), g0.xyzx
    add r4.xyz, -r1.xyzx, r4.xyzx
    dp3 r4.w, r4.xyzx, r4.xyzx
    mul r5.x, r4.w, r4.w
    mul r4.w, r4.w, r5.x
    sqrt r4.w, r4.w
    add r4.w, r4.w, l(0.100000)
    div r4.w, l(1.000000, 1.000000, 1.000000, 1.000000), r4.w
    mul r4.w, r0.w, r4.w
    mad r3.xyz, r4.wwww, r4.xyzx, r3.xyzx
    iadd r3.w, r3.w, l(1)
  endloop
  mov r2.xyz, r3.xyzx
  iadd r2.w, r2.w, l(1)
endloop
add r3.xyz, r0.xyzx, -r1.xyzx
mad r2.xyz, r3.xyzx, cb0[0].wwww, r2.xyzx
dp3 r0.w, r2.xyzx, r2.xyzx
sqrt r2.w, r0.w
mul r3.x, r2.w, l(0x3eaaaaab)
min r3.x, r3.x, l(1.000000)
log r3.x, r3.x
mul r3.x, r3.x, l(0.250000)
exp r3.w, r3.x
lt r4.x, l(0.000000), r2.w
rsq r0.w, r0.w
mul r4.yzw, r0.wwww, r2.xxyz
min r0.w, r2.w, cb0[2].z
mul r4.yzw, r0.wwww, r4.yyzw
movc r2.xyz, r4.xxxx, r4.yzwy, r2.xyzx
mad r0.xyz, r1.xyzx, l(2.000000, 2.000000, 2.000000, 0.000000), -r0.xyzx
mad r3.xyz, r2.xyzx, cb0[0].xxxx, r0.xyzx
mov r1.w, l(0)
store_structured u2.xyzw, vThreadID.x, l(0), r1.xyzw
store_structured u3.xyzw, vThreadID.x, l(0), r3.xyzw
ret
