cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions
dcl_immediateConstantBuffer { { 30, -2147483648.000000, 25069565825529571649911511230447616.000000, 26},
                              { -916112146432.000000, 0x00003c00, 63, -223854313472.000000},
                              { 31, -0.000000, -917676892049671894517940224.000000, 19},
                              { 20, 0x7fc00000, 15, -19693746145380899425278398300160.000000},
                              { 0x00003c00, 46, 0xff800000, 45},
                              { -1, -12771659659287225598531579086465138688.000000, 25, 0.500000},
                              { -3767011947224819797412563386368.000000, 13, 0x38800000, 0x082357f9},
                              { -892127173383553024.000000, 61, 0x38800000, 22} }
dcl_constantbuffer CB0[16], dynamicIndexed
dcl_resource_raw t0
dcl_resource_structured t1, 16
dcl_resource_buffer (uint,uint,uint,uint) t2
dcl_uav_raw u0
dcl_uav_structured u1, 16
dcl_uav_typed_buffer (uint,uint,uint,uint) u2
dcl_uav_structured u3, 4
dcl_input vThreadGroupID.xyz
dcl_input vThreadIDInGroupFlattened
dcl_input vThreadIDInGroup.xyz
dcl_input vThreadID.xyz
dcl_temps 10
dcl_indexableTemp x0[8], 4
dcl_tgsm_raw g0, 2112
dcl_tgsm_structured g1, 8, 256
dcl_tgsm_structured g2, 4, 64
dcl_thread_group 16, 1, 1
mov r0.y, vThreadIDInGroupFlattened.x
imad r0.x, r0.x, l(0), r0.y
imad r0.z, r0.x, l(512), l(0)
mov r4.xyzw, vThreadID.xyzw
loop
  breakc_nz r3.w
  uge r3.w, r2.y, r3.w
  sync_g_t
  store_structured g2.x, r3.y, l(0), r4.x
endloop
ld_structured r8.y, r3.y, l(0), g2.xxxx
store_raw u0.xyzw, r0.z, r8.xyzw
