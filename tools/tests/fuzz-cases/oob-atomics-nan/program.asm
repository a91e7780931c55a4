cs_5_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u0
dcl_uav_structured u3, 4
dcl_input vThreadIDInGroupFlattened
dcl_temps 3
dcl_thread_group 4, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(4)
iadd r0.x, r0.x, l(16)
imm_atomic_alloc r1.x, u3
atomic_iadd u0, l(0), r1.x
atomic_umax u0, l(4), vThreadIDInGroupFlattened.x
atomic_or u0, l(0x40000000), l(1)
imm_atomic_iadd r1.y, u0, l(0x40000004), l(5)
add r2.xyzw, l(0x7f800000, 0x7fc00001, 0x00000001, 0x80000000), l(0xff800000, 0x00000000, 0x00000001, 0x80000000)
store_raw u0.xyzw, r0.x, r2.xyzw
store_raw u0.x, l(12), r1.y
ret
