//! A small reference rasterizer: which pixels (and samples) a triangle
//! covers, in 2x2 quads, and the barycentric weights of any point.
//!
//! In: three vertices in window coordinates (x right, y down, in pixels;
//! z in [0, 1]; the reciprocal of clip w), the viewport size and the
//! sample positions of the target (offsets from the pixel's top-left
//! corner; one sample at (0.5, 0.5) when not multisampled). Out: a
//! [`Raster`]: facing, and every 2x2 quad (aligned to even coordinates)
//! with at least one covered sample inside the viewport; lanes with no
//! coverage are helpers. Invariant: D3D11's rules — vertices snapped to
//! 1/256 pixel, a sample is covered when it is strictly inside every edge
//! or on a top or left edge (clockwise winding on screen is front-facing),
//! weights perspective-correct unless asked for screen-linear ones.

/// The standard sample positions (D3D11 standard pattern) as offsets from
/// the pixel's top-left corner, for 1, 2, 4 and 8 samples.
pub fn standard_positions(samples: u32) -> Vec<(f64, f64)> {
    let pattern: &[(i32, i32)] = match samples {
        2 => &[(4, 4), (-4, -4)],
        4 => &[(-2, -6), (6, -2), (-6, 2), (2, 6)],
        8 => &[
            (1, -3),
            (-1, 3),
            (5, 1),
            (-3, -5),
            (-5, 5),
            (-7, -1),
            (3, 7),
            (7, -7),
        ],
        _ => &[(0, 0)],
    };
    pattern
        .iter()
        .map(|&(x, y)| (0.5 + f64::from(x) / 16.0, 0.5 + f64::from(y) / 16.0))
        .collect()
}

/// A vertex in window coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowVertex {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    /// 1 / clip w.
    pub inv_w: f64,
}

/// One pixel of a quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    pub x: u32,
    pub y: u32,
    /// Covered samples (bit i = sample i); 0 for a helper lane.
    pub coverage: u32,
}

/// A 2x2 quad: top-left, top-right, bottom-left, bottom-right.
pub type Quad = [Lane; 4];

/// A rasterized triangle.
#[derive(Clone, Debug)]
pub struct Raster {
    pub front_face: bool,
    pub quads: Vec<Quad>,
    v: [WindowVertex; 3],
    area: f64,
}

/// Barycentric weights of a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Screen-linear (noperspective).
    pub linear: [f64; 3],
    /// Perspective-correct.
    pub perspective: [f64; 3],
}

fn snap(v: f64) -> f64 {
    (v * 256.0).round() / 256.0
}

/// Edge function of a→b at p: positive inside a clockwise (y-down) triangle.
fn edge(a: &WindowVertex, b: &WindowVertex, px: f64, py: f64) -> f64 {
    (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)
}

/// Top edge (horizontal, interior below) or left edge (interior to the
/// right) of a clockwise y-down triangle.
fn top_left(a: &WindowVertex, b: &WindowVertex) -> bool {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    dy < 0.0 || (dy == 0.0 && dx > 0.0)
}

impl Raster {
    /// Rasterizes one triangle over a `width` x `height` viewport; `None`
    /// when it is degenerate (zero area) or has non-finite coordinates.
    pub fn new(
        v: [WindowVertex; 3],
        width: u32,
        height: u32,
        samples: &[(f64, f64)],
    ) -> Option<Raster> {
        let mut v = v.map(|p| WindowVertex {
            x: snap(p.x),
            y: snap(p.y),
            ..p
        });
        if v.iter().any(|p| !p.x.is_finite() || !p.y.is_finite()) {
            return None;
        }
        let mut area = edge(&v[0], &v[1], v[2].x, v[2].y);
        if area == 0.0 {
            return None;
        }
        let front_face = area > 0.0;
        if !front_face {
            v.swap(1, 2);
            area = -area;
        }
        let mut r = Raster {
            front_face,
            quads: Vec::new(),
            v,
            area,
        };
        let min = |f: fn(&WindowVertex) -> f64| v.iter().map(f).fold(f64::INFINITY, f64::min);
        let max = |f: fn(&WindowVertex) -> f64| v.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        let clampi = |lo: f64, hi: u32| lo.max(0.0).min(f64::from(hi)) as u32;
        let x0 = clampi(min(|p| p.x).floor() - 1.0, width) & !1;
        let y0 = clampi(min(|p| p.y).floor() - 1.0, height) & !1;
        let x1 = clampi(max(|p| p.x).ceil() + 1.0, width);
        let y1 = clampi(max(|p| p.y).ceil() + 1.0, height);
        for qy in (y0..y1).step_by(2) {
            for qx in (x0..x1).step_by(2) {
                let lanes = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| {
                    let (x, y) = (qx + dx, qy + dy);
                    let inside = x < width && y < height;
                    Lane {
                        x,
                        y,
                        coverage: if inside { r.coverage(x, y, samples) } else { 0 },
                    }
                });
                if lanes.iter().any(|l| l.coverage != 0) {
                    r.quads.push(lanes);
                }
            }
        }
        Some(r)
    }

    fn covers(&self, px: f64, py: f64) -> bool {
        let v = &self.v;
        [(0, 1), (1, 2), (2, 0)].iter().all(|&(a, b)| {
            let e = edge(&v[a], &v[b], px, py);
            e > 0.0 || (e == 0.0 && top_left(&v[a], &v[b]))
        })
    }

    fn coverage(&self, x: u32, y: u32, samples: &[(f64, f64)]) -> u32 {
        samples
            .iter()
            .enumerate()
            .filter(|(_, (sx, sy))| self.covers(f64::from(x) + sx, f64::from(y) + sy))
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The weights of the original vertices 0, 1, 2 at window point (px, py).
    pub fn weights(&self, px: f64, py: f64) -> Weights {
        let v = &self.v;
        let mut b = [
            edge(&v[1], &v[2], px, py) / self.area,
            edge(&v[2], &v[0], px, py) / self.area,
            edge(&v[0], &v[1], px, py) / self.area,
        ];
        let mut w = [v[0].inv_w, v[1].inv_w, v[2].inv_w];
        if !self.front_face {
            // Vertices 1 and 2 were swapped to make the winding clockwise.
            b.swap(1, 2);
            w.swap(1, 2);
        }
        let q: f64 = (0..3).map(|i| b[i] * w[i]).sum();
        let perspective = if q != 0.0 {
            [0, 1, 2].map(|i| b[i] * w[i] / q)
        } else {
            b
        };
        Weights {
            linear: b,
            perspective,
        }
    }

    /// Depth (screen-linear) at a window point.
    pub fn depth(&self, px: f64, py: f64) -> f64 {
        let b = self.weights(px, py).linear;
        let mut z = [self.v[0].z, self.v[1].z, self.v[2].z];
        if !self.front_face {
            z.swap(1, 2);
        }
        (0..3).map(|i| b[i] * z[i]).sum()
    }

    /// Clip w (the reciprocal of the screen-linear 1/w) at a window point.
    pub fn clip_w(&self, px: f64, py: f64) -> f64 {
        let b = self.weights(px, py).linear;
        let mut w = [self.v[0].inv_w, self.v[1].inv_w, self.v[2].inv_w];
        if !self.front_face {
            w.swap(1, 2);
        }
        let q: f64 = (0..3).map(|i| b[i] * w[i]).sum();
        1.0 / q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wv(x: f64, y: f64) -> WindowVertex {
        WindowVertex {
            x,
            y,
            z: 0.0,
            inv_w: 1.0,
        }
    }

    fn covered(r: &Raster) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = r
            .quads
            .iter()
            .flatten()
            .filter(|l| l.coverage != 0)
            .map(|l| (l.x, l.y))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_big_triangle_covers_the_viewport_once() {
        let c = [(0.5, 0.5)];
        // draw quad: (-2,-2), (-2,4), (4,-2) in clip space on 4x2.
        let to_win = |x: f64, y: f64| wv((x + 1.0) * 2.0, (1.0 - y) * 1.0);
        let r = Raster::new(
            [to_win(-2.0, -2.0), to_win(-2.0, 4.0), to_win(4.0, -2.0)],
            4,
            2,
            &c,
        )
        .unwrap();
        assert!(r.front_face, "the quad is clockwise on screen");
        assert_eq!(covered(&r).len(), 8);
        assert_eq!(r.quads.len(), 2);
    }

    #[test]
    fn shared_edges_cover_each_pixel_once() {
        // Two triangles splitting a 4x4 square along its diagonal, and the
        // square's edges on pixel centres' lines: every centre exactly once.
        let c = [(0.5, 0.5)];
        let a = Raster::new([wv(0.5, 0.5), wv(4.5, 0.5), wv(0.5, 4.5)], 8, 8, &c).unwrap();
        let b = Raster::new([wv(4.5, 0.5), wv(4.5, 4.5), wv(0.5, 4.5)], 8, 8, &c).unwrap();
        let mut all = covered(&a);
        all.extend(covered(&b));
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n, "no pixel twice");
        // Top and left edges (y = 0.5, x = 0.5) are in, right/bottom out.
        assert_eq!(n, 16);
        assert!(all.contains(&(0, 0)) && !all.contains(&(4, 0)) && !all.contains(&(0, 4)));
    }

    #[test]
    fn weights_are_perspective_correct() {
        let mut v = [wv(0.0, 0.0), wv(8.0, 0.0), wv(0.0, 8.0)];
        v[1].inv_w = 0.5; // vertex 1 is twice as far
        let r = Raster::new(v, 8, 8, &[(0.5, 0.5)]).unwrap();
        let w = r.weights(4.0, 0.0); // screen midpoint of edge 0-1
        assert!((w.linear[1] - 0.5).abs() < 1e-12);
        assert!((w.perspective[1] - 1.0 / 3.0).abs() < 1e-12);
        // Counter-clockwise input gives the same weights for the same vertices.
        let r2 = Raster::new([v[0], v[2], v[1]], 8, 8, &[(0.5, 0.5)]).unwrap();
        assert!(!r2.front_face);
        assert!((r2.weights(4.0, 0.0).perspective[2] - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn partial_quads_have_helpers() {
        let r = Raster::new(
            [wv(0.0, 0.0), wv(1.0, 0.0), wv(0.0, 1.0)],
            8,
            8,
            &[(0.5, 0.5)],
        );
        // The triangle covers no centre: (0.5, 0.5) lies on its hypotenuse,
        // which is a right/bottom edge.
        assert!(r.unwrap().quads.is_empty());
        let r = Raster::new(
            [wv(0.0, 0.0), wv(1.5, 0.0), wv(0.0, 1.5)],
            8,
            8,
            &[(0.5, 0.5)],
        )
        .unwrap();
        assert_eq!(r.quads.len(), 1);
        let cov: Vec<u32> = r.quads[0].iter().map(|l| l.coverage).collect();
        assert_eq!(cov, vec![1, 0, 0, 0]);
    }
}
