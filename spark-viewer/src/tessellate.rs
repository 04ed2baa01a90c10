//! Shapes as triangles in their own frame.

use std::f64::consts::{PI, TAU};

use crate::mesh::{load_mesh, Triangles};
use spark::geometry::Shape;

/// Segments around a circle.
const AROUND: usize = 16;
/// Rings from pole to pole of a sphere.
const RINGS: usize = 10;

/// A surface of revolution about z through the profile `(radius, z)` points, closed at its
/// ends when the end radius is zero (poles) or with a flat cap otherwise.
fn revolve(profile: &[(f64, f64)], scale: [f64; 3]) -> Triangles {
    let mut t = Triangles::default();
    // The first vertex of each ring; a ring of radius zero (a pole) is one vertex.
    let mut first = Vec::with_capacity(profile.len());
    for &(r, z) in profile {
        first.push(t.vertices.len());
        let n = if r > 0.0 { AROUND } else { 1 };
        for k in 0..n {
            let a = TAU * k as f64 / AROUND as f64;
            t.vertices
                .push([scale[0] * r * a.cos(), scale[1] * r * a.sin(), scale[2] * z]);
        }
    }
    let at = |ring: usize, k: usize| {
        let n = if profile[ring].0 > 0.0 { AROUND } else { 1 };
        (first[ring] + k % AROUND % n) as u32
    };
    let push = |t: &mut Triangles, tri: [u32; 3]| {
        if tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2] {
            t.triangles.push(tri);
        }
    };
    for ring in 0..profile.len() - 1 {
        for k in 0..AROUND {
            let (a, b, c, d) = (
                at(ring, k),
                at(ring, k + 1),
                at(ring + 1, k),
                at(ring + 1, k + 1),
            );
            push(&mut t, [a, b, d]);
            push(&mut t, [a, d, c]);
        }
    }
    let last = profile.len() - 1;
    for (ring, (r, z)) in [(0, profile[0]), (last, profile[last])] {
        if r > 0.0 {
            let centre = t.vertices.len() as u32;
            t.vertices.push([0.0, 0.0, scale[2] * z]);
            for k in 0..AROUND {
                let (a, b) = (at(ring, k), at(ring, k + 1));
                push(
                    &mut t,
                    if ring == 0 {
                        [centre, b, a]
                    } else {
                        [centre, a, b]
                    },
                );
            }
        }
    }
    t
}

fn sphere_profile(radius: f64, z0: f64, from: f64, to: f64, rings: usize) -> Vec<(f64, f64)> {
    (0..=rings)
        .map(|i| {
            let a = from + (to - from) * i as f64 / rings as f64;
            (radius * a.sin(), z0 - radius * a.cos())
        })
        .collect()
}

/// The triangles of a shape in its frame; `Err` names why a shape is left out. `plane` is the
/// half size given to unbounded planes.
pub fn shape(s: &Shape, plane: f64) -> Result<Triangles, String> {
    Ok(match *s {
        Shape::Sphere { radius } => revolve(&sphere_profile(radius, 0.0, 0.0, PI, RINGS), [1.0; 3]),
        Shape::Ellipsoid { radii } => revolve(&sphere_profile(1.0, 0.0, 0.0, PI, RINGS), radii),
        Shape::Capsule {
            radius,
            half_length,
        } => {
            let mut p = sphere_profile(radius, -half_length, 0.0, PI / 2.0, RINGS / 2);
            p.extend(sphere_profile(radius, half_length, PI / 2.0, PI, RINGS / 2));
            revolve(&p, [1.0; 3])
        }
        Shape::Cylinder {
            radius,
            half_length,
        } => revolve(&[(radius, -half_length), (radius, half_length)], [1.0; 3]),
        Shape::Box { half_extents: h } => {
            let mut t = Triangles::default();
            for i in 0..8 {
                t.vertices.push([
                    if i & 1 == 0 { -h[0] } else { h[0] },
                    if i & 2 == 0 { -h[1] } else { h[1] },
                    if i & 4 == 0 { -h[2] } else { h[2] },
                ]);
            }
            t.triangles = vec![
                [0, 2, 3],
                [0, 3, 1],
                [4, 5, 7],
                [4, 7, 6],
                [0, 1, 5],
                [0, 5, 4],
                [2, 6, 7],
                [2, 7, 3],
                [0, 4, 6],
                [0, 6, 2],
                [1, 3, 7],
                [1, 7, 5],
            ];
            t
        }
        Shape::Plane { half_extents } => {
            let [x, y] = if half_extents[0] > 0.0 && half_extents[1] > 0.0 {
                half_extents
            } else {
                [plane, plane]
            };
            Triangles {
                vertices: vec![[-x, -y, 0.0], [x, -y, 0.0], [x, y, 0.0], [-x, y, 0.0]],
                triangles: vec![[0, 1, 2], [0, 2, 3]],
            }
        }
        Shape::Mesh { path, scale } => {
            let mut t = load_mesh(path).map_err(|e| e.to_string())?;
            for v in &mut t.vertices {
                for k in 0..3 {
                    v[k] *= scale[k];
                }
            }
            t
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_shapes_fit_their_extents() {
        for s in [
            Shape::Sphere { radius: 0.5 },
            Shape::Capsule {
                radius: 0.1,
                half_length: 0.3,
            },
            Shape::Cylinder {
                radius: 0.1,
                half_length: 0.3,
            },
            Shape::Box {
                half_extents: [0.1, 0.2, 0.3],
            },
            Shape::Ellipsoid {
                radii: [0.1, 0.2, 0.3],
            },
        ] {
            let t = shape(&s, 1.0).unwrap();
            let (lo, hi) = t.bounds().unwrap();
            let h = s.half_extents().unwrap();
            for k in 0..3 {
                assert!(
                    (hi[k] - h[k]).abs() < 1e-9 && (lo[k] + h[k]).abs() < 1e-9,
                    "{s:?}: {lo:?} {hi:?}"
                );
            }
            // Closed: every edge is shared by two triangles.
            let mut edges = std::collections::HashMap::new();
            for tri in &t.triangles {
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
                }
            }
            assert!(edges.values().all(|&n| n == 2), "{s:?} is not closed");
        }
    }

    #[test]
    fn a_missing_mesh_is_an_error_naming_the_file() {
        let e = shape(
            &Shape::Mesh {
                path: "/nonexistent/arm.stl",
                scale: [1.0; 3],
            },
            1.0,
        )
        .unwrap_err();
        assert!(e.contains("/nonexistent/arm.stl"), "{e}");
    }
}
