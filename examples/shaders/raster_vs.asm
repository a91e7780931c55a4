// The rasterizer example's vertex shader (examples/rasterizer.rs).
// cb0[0..3]: view-projection rows; cb0[4..6]: world rows (rotation and
// translation). In: v0 position, v1 normal, v2 tangent (w: bitangent
// sign), v3 texture coordinates. Out: o0 clip position, o1 world normal,
// o2 world tangent (w kept), o3 texture coordinates, o4 world position.
vs_5_0
dcl_constantbuffer CB0[7], immediateIndexed
dcl_input v0.xyz
dcl_input v1.xyz
dcl_input v2.xyzw
dcl_input v3.xy
dcl_output_siv o0.xyzw, position
dcl_output o1.xyz
dcl_output o2.xyzw
dcl_output o3.xy
dcl_output o4.xyz
dcl_temps 2
mov r1.xyz, v0.xyzx
mov r1.w, l(1.0)
dp4 r0.x, cb0[4].xyzw, r1.xyzw
dp4 r0.y, cb0[5].xyzw, r1.xyzw
dp4 r0.z, cb0[6].xyzw, r1.xyzw
mov r0.w, l(1.0)
mov o4.xyz, r0.xyzx
dp4 o0.x, cb0[0].xyzw, r0.xyzw
dp4 o0.y, cb0[1].xyzw, r0.xyzw
dp4 o0.z, cb0[2].xyzw, r0.xyzw
dp4 o0.w, cb0[3].xyzw, r0.xyzw
dp3 o1.x, cb0[4].xyzx, v1.xyzx
dp3 o1.y, cb0[5].xyzx, v1.xyzx
dp3 o1.z, cb0[6].xyzx, v1.xyzx
dp3 o2.x, cb0[4].xyzx, v2.xyzx
dp3 o2.y, cb0[5].xyzx, v2.xyzx
dp3 o2.z, cb0[6].xyzx, v2.xyzx
mov o2.w, v2.w
mov o3.xy, v3.xyxx
ret
