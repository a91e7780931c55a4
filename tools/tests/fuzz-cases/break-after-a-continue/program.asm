cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions
dcl_immediateConstantBuffer { { 0xa3f2b32e, 16, 0x0e7748b4, 0x0cacb789},
                              { 25, 0.500000, 10516.854492, 793639928858844137727545311232.000000},
                              { 0xff800000, 31, 0xff800000, 37},
                              { 0x7fc00000, 0x38800000, -1, 0.500000},
                              { 2147483648.000000, 3.500000, 0x38800000, 25},
                              { 3.500000, 8, 0x1a370b1f, -6321886543804761951436800.000000},
                              { 21, 0xa3e7d572, 0xa61eee5e, 31},
                              { 3, 34, 0xa2be3a5c, -80306576266604086034432.000000} }
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
dcl_tgsm_raw g0, 544
dcl_tgsm_structured g1, 8, 60
dcl_thread_group 1, 3, 1
mov r0.y, vThreadIDInGroupFlattened.x
loop
  and r3.w, r0.y, l(3)
  continuec_nz r3.w
  break
endloop
