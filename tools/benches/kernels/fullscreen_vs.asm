// Full-screen triangle from SV_VertexID (no vertex buffer): vertex i at
// uv = ((i << 1) & 2, i & 2), clip position (2u - 1, 1 - 2v, 0.5, 1).
// The three vertices (-1, 1), (3, 1), (-1, -3) cover the viewport; the
// interpolated TEXCOORD1 at pixel (x, y) of a W x H target is
// ((x + 0.5) / W, (y + 0.5) / H). Every pixel kernel uses this shader.
vs_5_0
dcl_input_sgv v0.x, vertex_id
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_temps 1
ishl r0.x, v0.x, l(1)
and r0.x, r0.x, l(2)
and r0.y, v0.x, l(2)
utof r0.xy, r0.xyxx
mad o0.xy, r0.xyxx, l(2.0, -2.0, 0.0, 0.0), l(-1.0, 1.0, 0.0, 0.0)
mov o0.zw, l(0, 0, 0.5, 1.0)
mov o1.xy, r0.xyxx
ret
