cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions | enable11_1ShaderExtensions
dcl_immediateConstantBuffer { { 49, 31, 13, 42},
                              { 1, -11256272138851867164672.000000, 31, 0x0a68fec9},
                              { 0xb4db23c6, 0, 4294967296.000000, -7.925403},
                              { 0x7f800001, 10000000000.000000, 32, 0xa304f15a},
                              { -167570624566728610799587164160.000000, 58, -112918109005807616.000000, 8},
                              { 17, 0x38f7c1ea, -0.000000, 0x93e13278},
                              { 2639472765375088981991525802972282880.000000, -2147483648.000000, 65504.000000, 31},
                              { 0, -8241743203926016.000000, 56, 52} }
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
dcl_tgsm_raw g0, 128
dcl_tgsm_structured g1, 8, 8
dcl_thread_group 1, 1, 1
loop
  uge r3.w, r2.x, l(1)
  breakc_nz r3.w
  iadd r2.x, r2.x, l(1)
  sync_uglobal_g_t
  sincos r5.w, null, cb0[3].xyzw
endloop
store_raw u0.xyzw, r0.z, r5.xyzw
