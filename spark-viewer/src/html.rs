//! The self-contained HTML animation: the recording's triangles and poses as one JSON object,
//! and a small canvas renderer (`viewer.js`, embedded) that draws them with the painter's
//! algorithm. No WebGL, no library, nothing fetched.

use std::fmt::Write;

use spark::geometry::{Pose, Shape, Visual};

use crate::mesh::Triangles;
use crate::tessellate;
use crate::{Recording, ViewerError};

/// The most frames a page holds (longer recordings are subsampled evenly, first and last kept).
pub const MAX_FRAMES: usize = 1500;
/// The most triangles of one mesh file (larger meshes are decimated).
pub const MESH_BUDGET: usize = 4000;
/// The most triangles of a page (visuals past it are left out, with a warning).
pub const PAGE_BUDGET: usize = 80_000;

/// A written page.
///
/// ```
/// # use spark_viewer::{Recording, Geometry, Pose, Shape, Visual};
/// # use spark::nalgebra::{Matrix3, Vector3};
/// const MESH: [Visual; 1] = [Visual { body: Some(0), name: "m", shape: Shape::Mesh { path: "/nonexistent/part.stl", scale: [1.0; 3] }, pose: Pose::IDENTITY, rgba: [1.0; 4] }];
/// const G: Geometry = Geometry { body_names: &["a"], body_parents: &[None], visuals: &MESH, skeleton: &[], joints: &[], sites: &[] };
/// let mut rec = Recording::new("t", &G);
/// rec.frame(0.0, &[(Vector3::zeros(), Matrix3::identity())]).unwrap();
/// let page = rec.html().unwrap();
/// assert!(page.warnings[0].contains("/nonexistent/part.stl"));
/// ```
#[derive(Clone, Debug)]
pub struct Page {
    /// The HTML document.
    pub html: String,
    /// What was left out and why (missing or unreadable meshes, budgets).
    pub warnings: Vec<String>,
}

/// A number with at most `d` decimals, trailing zeros dropped.
fn num(out: &mut String, x: f64, d: usize) {
    let mut s = format!("{x:.d$}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".into();
    }
    out.push_str(&s);
}

fn nums(out: &mut String, xs: impl IntoIterator<Item = f64>, d: usize) {
    out.push('[');
    for (k, x) in xs.into_iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        num(out, x, d);
    }
    out.push(']');
}

/// A JSON string, with `<` escaped so that it cannot close the script.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The unit quaternion `[w, x, y, z]` (w ≥ 0) of a rotation matrix (row-major), by nalgebra.
pub(crate) fn quaternion(r: &[[f64; 3]; 3]) -> [f64; 4] {
    use spark::nalgebra::{Matrix3, Rotation3, UnitQuaternion};
    let m = Matrix3::from_fn(|i, j| r[i][j]);
    let q = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m));
    let sign = if q.w < 0.0 { -1.0 } else { 1.0 };
    [q.w, q.i, q.j, q.k].map(|x| sign * x)
}

/// The frames kept: all, or [`MAX_FRAMES`] evenly spread with the first and the last.
pub(crate) fn kept_frames(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        return (0..n).collect();
    }
    let mut v: Vec<usize> = (0..max)
        .map(|k| (k as f64 * (n - 1) as f64 / (max - 1) as f64).round() as usize)
        .collect();
    v.dedup();
    v
}

/// The visuals as triangles in their body's frame, with the warnings.
pub(crate) fn triangles(
    visuals: &[Visual],
    plane: f64,
    warnings: &mut Vec<String>,
) -> Vec<(Visual, Triangles)> {
    let mut out = Vec::new();
    let mut total = 0usize;
    let mut cache: Vec<(&str, Result<Triangles, String>)> = Vec::new();
    for v in visuals {
        let tri = match v.shape {
            Shape::Mesh { path, scale } => {
                let found = cache.iter().position(|c| c.0 == path);
                let loaded = match found {
                    Some(k) => cache[k].1.clone(),
                    None => {
                        let r = tessellate::shape(
                            &Shape::Mesh {
                                path,
                                scale: [1.0; 3],
                            },
                            plane,
                        )
                        .map(|t| t.decimated(MESH_BUDGET));
                        cache.push((path, r.clone()));
                        r
                    }
                };
                loaded.map(|mut t| {
                    for p in &mut t.vertices {
                        for k in 0..3 {
                            p[k] *= scale[k];
                        }
                    }
                    t
                })
            }
            ref s => tessellate::shape(s, plane),
        };
        match tri {
            Ok(mut t) => {
                if total + t.triangles.len() > PAGE_BUDGET {
                    warnings.push(format!(
                        "visual `{}` left out: the page holds at most {PAGE_BUDGET} triangles",
                        v.name
                    ));
                    continue;
                }
                total += t.triangles.len();
                for p in &mut t.vertices {
                    *p = v.pose.apply(*p);
                }
                out.push((*v, t));
            }
            Err(e) => warnings.push(format!("visual `{}` left out: {e}", v.name)),
        }
    }
    out
}

/// The world bounding box of the triangles over the kept frames.
pub(crate) fn bounds(
    rec: &Recording,
    parts: &[(Visual, Triangles)],
    frames: &[usize],
) -> ([f64; 3], [f64; 3]) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let step = (frames.len() / 200).max(1);
    let boxes: Vec<(Option<usize>, [f64; 3], [f64; 3])> = parts
        .iter()
        .filter(|(v, _)| !matches!(v.shape, Shape::Plane { half_extents } if half_extents[0] <= 0.0 || half_extents[1] <= 0.0))
        .filter_map(|(v, t)| t.bounds().map(|(a, b)| (v.body, a, b)))
        .collect();
    for &k in frames.iter().step_by(step).chain(frames.last()) {
        let poses = rec.poses(k);
        for (body, a, b) in &boxes {
            let pose = body.map_or(Pose::IDENTITY, |b| poses[b]);
            for c in 0..8 {
                let p = [
                    if c & 1 == 0 { a[0] } else { b[0] },
                    if c & 2 == 0 { a[1] } else { b[1] },
                    if c & 4 == 0 { a[2] } else { b[2] },
                ];
                let w = pose.apply(p);
                for i in 0..3 {
                    lo[i] = lo[i].min(w[i]);
                    hi[i] = hi[i].max(w[i]);
                }
            }
        }
        if boxes.is_empty() {
            for p in poses {
                for i in 0..3 {
                    lo[i] = lo[i].min(p.position[i]);
                    hi[i] = hi[i].max(p.position[i]);
                }
            }
        }
    }
    if !lo[0].is_finite() {
        return ([-0.5; 3], [0.5; 3]);
    }
    (lo, hi)
}

/// The page of a recording.
pub fn page(rec: &Recording) -> Result<Page, ViewerError> {
    if rec.is_empty() {
        return Err(ViewerError::Empty);
    }
    let mut warnings = Vec::new();
    let frames = kept_frames(rec.len(), MAX_FRAMES);
    // Bounds without unbounded planes first, then planes sized to the scene.
    let parts = triangles(rec.visuals(), 1.0, &mut Vec::new());
    let (lo, hi) = bounds(rec, &parts, &frames);
    let radius = (0..3)
        .map(|k| (hi[k] - lo[k]).powi(2))
        .sum::<f64>()
        .sqrt()
        .max(1e-3)
        * 0.5;
    let parts = triangles(rec.visuals(), 3.0 * radius, &mut warnings);
    let centre: [f64; 3] = std::array::from_fn(|k| 0.5 * (lo[k] + hi[k]));

    let mut d = String::with_capacity(1 << 20);
    d.push_str("{\"title\":");
    string(&mut d, rec.title());
    d.push_str(",\"bodies\":");
    let _ = write!(d, "{}", rec.geometry().body_names.len());
    d.push_str(",\"names\":[");
    for (k, n) in rec.geometry().body_names.iter().enumerate() {
        if k > 0 {
            d.push(',');
        }
        string(&mut d, n);
    }
    d.push_str("],\"center\":");
    nums(&mut d, centre, 6);
    d.push_str(",\"radius\":");
    num(&mut d, radius, 6);
    // The view: from the side of a planar mechanism's plane, else obliquely from above.
    let ext: [f64; 3] = std::array::from_fn(|k| hi[k] - lo[k]);
    let view = if ext[2] < 0.05 * radius {
        [-1.2, 1.05]
    } else if ext[1] < 0.05 * radius {
        [-std::f64::consts::FRAC_PI_2 + 0.25, 0.25]
    } else if ext[0] < 0.05 * radius {
        [0.25, 0.25]
    } else {
        [-0.9, 0.45]
    };
    d.push_str(",\"view\":");
    nums(&mut d, view, 3);
    d.push_str(",\"ground\":");
    num(&mut d, lo[2], 6);
    d.push_str(",\"times\":");
    nums(&mut d, frames.iter().map(|&k| rec.times()[k]), 6);
    d.push_str(",\"frames\":[");
    for (n, &k) in frames.iter().enumerate() {
        if n > 0 {
            d.push(',');
        }
        let flat = rec.poses(k).iter().flat_map(|p| {
            let q = quaternion(&p.rotation);
            [
                p.position[0],
                p.position[1],
                p.position[2],
                q[0],
                q[1],
                q[2],
                q[3],
            ]
        });
        nums(&mut d, flat, 5);
    }
    d.push_str("],\"visuals\":[");
    for (n, (v, t)) in parts.iter().enumerate() {
        if n > 0 {
            d.push(',');
        }
        let plane = matches!(v.shape, Shape::Plane { .. }) as u8;
        let _ = write!(
            d,
            "{{\"b\":{},\"p\":{plane},\"c\":",
            v.body.map_or(-1, |b| b as i64)
        );
        nums(&mut d, v.rgba.map(f64::from), 3);
        d.push_str(",\"v\":");
        nums(&mut d, t.vertices.iter().flatten().copied(), 5);
        d.push_str(",\"i\":");
        nums(&mut d, t.triangles.iter().flatten().map(|&i| i as f64), 0);
        d.push('}');
    }
    d.push_str("],\"series\":[");
    for (n, s) in rec.series().iter().enumerate() {
        if n > 0 {
            d.push(',');
        }
        d.push_str("{\"name\":");
        string(&mut d, &s.name);
        let step = (s.points.len() / 2000).max(1);
        d.push_str(",\"t\":");
        nums(&mut d, s.points.iter().step_by(step).map(|p| p.0), 6);
        d.push_str(",\"y\":");
        let y: Vec<f64> = s.points.iter().step_by(step).map(|p| p.1).collect();
        let mut ys = String::new();
        ys.push('[');
        for (k, x) in y.iter().enumerate() {
            if k > 0 {
                ys.push(',');
            }
            let _ = write!(ys, "{x:.4e}");
        }
        ys.push(']');
        d.push_str(&ys);
        d.push('}');
    }
    d.push_str("]}");

    let mut title = String::new();
    for c in rec.title().chars() {
        match c {
            '<' => title.push_str("&lt;"),
            '>' => title.push_str("&gt;"),
            '&' => title.push_str("&amp;"),
            c => title.push(c),
        }
    }
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <meta name=\"generator\" content=\"spark-viewer\">\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <canvas id=\"view\"></canvas>\n<div id=\"bar\"><button id=\"play\" title=\"play or pause (space)\">pause</button>\
         <input id=\"scrub\" type=\"range\" min=\"0\" max=\"1000\" value=\"0\" aria-label=\"time\">\
         <span id=\"time\"></span><select id=\"speed\" aria-label=\"speed\"><option value=\"0.25\">0.25x</option>\
         <option value=\"0.5\">0.5x</option><option value=\"1\" selected>1x</option><option value=\"2\">2x</option></select>\
         <span id=\"name\">{title}</span><canvas id=\"plot\" width=\"320\" height=\"76\"></canvas></div>\n\
         <script id=\"data\" type=\"application/json\">{d}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    Ok(Page { html, warnings })
}

const STYLE: &str = "html,body{margin:0;height:100%;overflow:hidden;background:#f4f5f7;\
font:13px system-ui,sans-serif;color:#223}#view{display:block;width:100%;height:calc(100% - 84px);\
cursor:grab}#bar{height:84px;display:flex;align-items:center;gap:10px;padding:0 12px;\
box-sizing:border-box;background:#e3e6ec;border-top:1px solid #c8ccd6}#scrub{flex:1}\
#time{font-variant-numeric:tabular-nums;min-width:7em}#plot{background:#fff;border:1px solid #c8ccd6}";

const SCRIPT: &str = include_str!("viewer.js");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternions_of_rotations() {
        let r = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let q = quaternion(&r);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        for (a, b) in q.iter().zip([h, 0.0, 0.0, h]) {
            assert!((a - b).abs() < 1e-12, "{q:?}");
        }
    }

    #[test]
    fn frames_are_subsampled_with_both_ends() {
        let k = kept_frames(10_000, 1500);
        assert_eq!(k.len(), 1500);
        assert_eq!((k[0], k[1499]), (0, 9999));
        assert_eq!(kept_frames(5, 1500), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn numbers_and_strings_are_compact_and_safe() {
        let mut s = String::new();
        nums(&mut s, [1.0, -0.0, 0.123456789, -2.5], 5);
        assert_eq!(s, "[1,0,0.12346,-2.5]");
        let mut s = String::new();
        string(&mut s, "a\"</script>");
        assert_eq!(s, "\"a\\\"\\u003c/script>\"");
    }
}
