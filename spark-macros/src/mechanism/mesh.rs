//! Mass properties of mesh files, as MuJoCo computes them (checked against MuJoCo 4.0.0).
//!
//! [`load`] reads a mesh file: binary and ASCII STL, Wavefront OBJ and MuJoCo's binary `.msh`.
//! Vertices are kept as the `f32` values MuJoCo stores (MuJoCo reads every format into
//! `float` and computes in `double` from there). [`mass_properties`] (and
//! [`mass_properties_with`] for `refpos`, `refquat`, `maxhullvert`) follows MuJoCo's mesh
//! compiler step by step:
//!
//! 1. the vertices are moved by `-refpos`, rotated by the inverse of `refquat`, then scaled
//!    (a scale of negative determinant reverses the faces, so that the volume stays positive);
//! 2. the area-weighted centroid of the faces is the apex of one pyramid per face; the signed
//!    pyramid volumes (`exact`, `convex` on the convex hull), their absolute values (`legacy`)
//!    or the face areas (`shell`) give the volume or area and the centre of mass;
//! 3. the second moments (per unit density) about the centre of mass, from the same
//!    decomposition, give the inertia tensor, and the volume again;
//! 4. MuJoCo's own Jacobi iteration ([`eig3`]) gives principal moments and a quaternion:
//!    MuJoCo moves the mesh to this principal frame (centre of mass at the origin), offsets every
//!    geom that uses the mesh by it, and gives a mesh geom the inertia of the "equivalent
//!    inertia box" of these principal moments ([`MeshMass::box_half`]).
//!
//! The convex hull (for `inertia="convex"`, and for files without faces) is this module's own
//! incremental quickhull ([`convex_hull`]) with Shewchuk's exact orientation predicate from
//! the `robust` crate: a point is added only if it is strictly outside a face, so coplanar and
//! duplicate points are handled exactly and the hull is a closed, consistently oriented
//! triangulation. MuJoCo uses Qhull; the hull's triangulation may differ, its volume and
//! moments do not (to rounding). `maxhullvert` (Qhull's `Q9 TA`) is only followed in spirit:
//! after the first simplex the globally furthest outside point is added until the hull has
//! `maxhullvert` vertices; the first simplex and the partition are not Qhull's, and the
//! limited hull's volume differs from MuJoCo's by 2–25 % (measured): not usable for exact work.
//! MuJoCo also builds the hull of every collision mesh and then refuses flat ones; that is the
//! caller's business here.
//!
//! Agreement with MuJoCo 4.0.0 (`mesh_tests.rs`, `tests/meshes/reference.py`): mass and
//! centre of mass to 1e-10 relative; everything that goes through the principal frame (the
//! body tensor of a mesh geom, fitted primitives) to 1e-9 on the reference cases and to 1e-7
//! on Menagerie meshes, because MuJoCo's Jacobi iteration stops before convergence by a rule
//! only approximated here ([`eig3`]). [`MeshMass::inertia`] is the exact tensor.
//!
//! STL and OBJ are read by this module too: MuJoCo's readers have their own rules (a binary STL
//! is recognised by its size `84 + 50 n`, vertices are merged by bit pattern; an OBJ keeps every
//! `v`, used by faces or not, and only the first object or group with faces), which general
//! readers such as `stl_io` and `tobj` do not follow (they merge, re-index or drop vertices,
//! which changes the convex hull and the bounding box).

use std::io::Read;
use std::path::Path;

use super::tree::{self, M3, V3};

/// Files larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// MuJoCo's `mjMINVAL`.
const MINVAL: f64 = 1e-15;
/// MuJoCo's `mjEPS`.
const EPS: f64 = 1e-14;

/// A triangle mesh as MuJoCo reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// The file name, for messages.
    pub name: String,
    /// Vertices (`f32` values, widened).
    pub vertices: Vec<V3>,
    /// Triangles, counter-clockwise seen from outside; empty for an `.msh` without faces (the
    /// convex hull is used then, as in MuJoCo).
    pub faces: Vec<[u32; 3]>,
}

/// MJCF `<mesh inertia="...">`: how a mesh gives mass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InertiaMode {
    /// `convex`: the solid convex hull of the vertices.
    Convex,
    /// `exact`: the solid enclosed by the faces (signed volumes; inconsistently oriented faces
    /// are an error).
    Exact,
    /// `legacy`, MuJoCo 4.0's default: like `exact` but every pyramid counts with its absolute
    /// volume.
    #[default]
    Legacy,
    /// `shell`: mass on the surface, per unit area.
    Shell,
}

impl InertiaMode {
    /// The mode of an MJCF `inertia` value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "convex" => Self::Convex,
            "exact" => Self::Exact,
            "legacy" => Self::Legacy,
            "shell" => Self::Shell,
            _ => return None,
        })
    }
}

/// The attributes of an MJCF `<mesh>` that change its mass properties.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshParams {
    /// `scale`.
    pub scale: V3,
    /// `refpos`: the file point that becomes the origin.
    pub refpos: V3,
    /// `refquat` `[w, x, y, z]` (normalized here): the file frame's orientation that becomes the
    /// identity.
    pub refquat: [f64; 4],
    /// `inertia`.
    pub inertia: InertiaMode,
    /// `maxhullvert` (`None` for MuJoCo's −1: no limit); at least 4.
    pub maxhullvert: Option<usize>,
}

impl Default for MeshParams {
    fn default() -> Self {
        Self {
            scale: [1.0; 3],
            refpos: [0.0; 3],
            refquat: [1.0, 0.0, 0.0, 0.0],
            inertia: InertiaMode::default(),
            maxhullvert: None,
        }
    }
}

/// Mass properties of a mesh per unit density, in the mesh's coordinates (the file's after
/// `refpos`, `refquat` and `scale`), and the frame MuJoCo moves the mesh to.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshMass {
    /// Volume, or area for `shell`.
    pub measure: f64,
    /// Centre of mass.
    pub com: V3,
    /// Inertia tensor per unit density about the centre of mass, in the mesh's axes.
    pub inertia: M3,
    /// Principal moments per unit density, as MuJoCo's iteration leaves them (decreasing
    /// unless equal to within 1e-12).
    pub principal: V3,
    /// Position of MuJoCo's principal frame in the mesh's coordinates (the centre of mass).
    pub frame_pos: V3,
    /// Orientation of the principal frame `[w, x, y, z]`: a geom that uses the mesh is placed at
    /// `geom ∘ (frame_pos, frame_quat)`.
    pub frame_quat: [f64; 4],
    /// The same orientation as a matrix (principal axes as columns).
    pub frame_rot: M3,
    /// Half sizes of the equivalent inertia box (MuJoCo's `boxsz`): a mesh geom of mass `m`
    /// has principal moments `m (b₁² + b₂²) / 3`, ...
    pub box_half: V3,
    /// Axis-aligned bounding box `[min, max]` of all vertices in the principal frame.
    pub aabb: [V3; 2],
}

// ---------------------------------------------------------------------------------------------
// Reading

/// The mesh file formats [`parse`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Binary or ASCII STL.
    Stl,
    /// Wavefront OBJ.
    Obj,
    /// MuJoCo's binary `.msh`.
    Msh,
}

impl Format {
    /// The format of a file name's extension (case-insensitive).
    pub fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "stl" => Self::Stl,
            "obj" => Self::Obj,
            "msh" => Self::Msh,
            _ => return None,
        })
    }
}

/// Reads a mesh file (`.stl`, `.obj` or `.msh`, by extension). Only regular files of at most
/// [`MAX_FILE_BYTES`] are read; anything malformed is an error naming the file.
pub fn load(path: &Path) -> Result<Mesh, String> {
    let name = path.display().to_string();
    let format = Format::of(path).ok_or_else(|| {
        format!("mesh file `{name}` has an unknown extension (expected .stl, .obj or .msh)")
    })?;
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read mesh file `{name}`: {e}"))?;
    if !meta.file_type().is_file() {
        return Err(format!("mesh file `{name}` is not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "mesh file `{name}` has {} bytes, more than the limit of {MAX_FILE_BYTES}",
            meta.len()
        ));
    }
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read mesh file `{name}`: {e}"))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read mesh file `{name}`: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "mesh file `{name}` has more than the limit of {MAX_FILE_BYTES} bytes"
        ));
    }
    parse(&bytes, format, &name)
}

/// Parses the bytes of a mesh file; `name` is used in messages.
pub fn parse(bytes: &[u8], format: Format, name: &str) -> Result<Mesh, String> {
    let mesh = match format {
        Format::Stl => parse_stl(bytes, name)?,
        Format::Obj => parse_obj(bytes, name)?,
        Format::Msh => parse_msh(bytes, name)?,
    };
    check(&mesh)?;
    Ok(mesh)
}

fn check(mesh: &Mesh) -> Result<(), String> {
    let name = &mesh.name;
    if mesh.vertices.len() < 4 {
        return Err(format!(
            "mesh file `{name}` has {} vertices, at least 4 are needed",
            mesh.vertices.len()
        ));
    }
    if let Some(i) = mesh
        .vertices
        .iter()
        .position(|v| v.iter().any(|x| !x.is_finite()))
    {
        return Err(format!(
            "mesh file `{name}`: vertex {} has a coordinate that is not finite",
            i + 1
        ));
    }
    let n = mesh.vertices.len();
    for (i, f) in mesh.faces.iter().enumerate() {
        if let Some(k) = f.iter().find(|&&k| k as usize >= n) {
            return Err(format!(
                "mesh file `{name}`: face {} refers to vertex {}, but there are only {n}",
                i + 1,
                k + 1
            ));
        }
    }
    Ok(())
}

fn f32_at(b: &[u8], at: usize) -> f64 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as f64
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Vertices merged by bit pattern, as MuJoCo's STL reader does.
#[derive(Default)]
struct Merge {
    index: std::collections::HashMap<[u32; 3], u32>,
    vertices: Vec<V3>,
}

impl Merge {
    fn add(&mut self, v: [f32; 3]) -> u32 {
        let key = v.map(f32::to_bits);
        let next = self.vertices.len() as u32;
        *self.index.entry(key).or_insert_with(|| {
            self.vertices.push(v.map(f64::from));
            next
        })
    }
}

fn parse_stl(b: &[u8], name: &str) -> Result<Mesh, String> {
    // Binary exactly when the size matches the face count, as MuJoCo decides (many binary
    // files start with "solid" too).
    if b.len() >= 84 {
        let n = u32_at(b, 80) as u64;
        if 84 + 50 * n == b.len() as u64 {
            return parse_stl_binary(b, n as usize, name);
        }
    }
    let text = String::from_utf8_lossy(b);
    if text.trim_start().starts_with("solid") && text.contains("facet") {
        return parse_stl_ascii(&text, name);
    }
    if b.len() < 84 {
        return Err(format!(
            "the STL file `{name}` is truncated: {} bytes, a binary header needs 84",
            b.len()
        ));
    }
    let n = u32_at(b, 80) as u64;
    Err(format!(
        "the binary STL file `{name}` has {} bytes, but its {n} faces need {}",
        b.len(),
        84 + 50 * n
    ))
}

fn parse_stl_binary(b: &[u8], n: usize, name: &str) -> Result<Mesh, String> {
    if n == 0 {
        return Err(format!("the binary STL file `{name}` has no faces"));
    }
    let mut merge = Merge::default();
    let mut faces = Vec::with_capacity(n);
    for i in 0..n {
        let at = 84 + 50 * i;
        let mut f = [0u32; 3];
        for (j, slot) in f.iter_mut().enumerate() {
            let p = at + 12 * (j + 1);
            let v = [0, 4, 8].map(|o| f32_at(b, p + o) as f32);
            if v.iter().any(|x| !x.is_finite()) {
                return Err(format!(
                    "the binary STL file `{name}`: face {} has a coordinate that is not finite",
                    i + 1
                ));
            }
            *slot = merge.add(v);
        }
        faces.push(f);
    }
    Ok(Mesh {
        name: name.to_string(),
        vertices: merge.vertices,
        faces,
    })
}

fn parse_stl_ascii(text: &str, name: &str) -> Result<Mesh, String> {
    let mut merge = Merge::default();
    let mut faces = Vec::new();
    let mut poly: Vec<u32> = Vec::new();
    let mut in_loop = false;
    for (ln, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("outer") => {
                in_loop = true;
                poly.clear();
            }
            Some("vertex") => {
                if !in_loop {
                    return Err(format!(
                        "the ASCII STL file `{name}`, line {}: `vertex` outside a loop",
                        ln + 1
                    ));
                }
                let mut v = [0f32; 3];
                for x in v.iter_mut() {
                    *x = words
                        .next()
                        .and_then(|w| w.parse::<f32>().ok())
                        .ok_or_else(|| {
                            format!(
                                "the ASCII STL file `{name}`, line {}: a vertex needs three numbers",
                                ln + 1
                            )
                        })?;
                }
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(format!(
                        "the ASCII STL file `{name}`, line {}: a coordinate is not finite",
                        ln + 1
                    ));
                }
                poly.push(merge.add(v));
            }
            Some("endloop") => {
                if poly.len() < 3 {
                    return Err(format!(
                        "the ASCII STL file `{name}`, line {}: a facet has {} vertices, at least 3 are needed",
                        ln + 1,
                        poly.len()
                    ));
                }
                for k in 1..poly.len() - 1 {
                    faces.push([poly[0], poly[k], poly[k + 1]]);
                }
                in_loop = false;
            }
            _ => {}
        }
    }
    if in_loop {
        return Err(format!(
            "the ASCII STL file `{name}` is truncated inside a facet"
        ));
    }
    if faces.is_empty() {
        return Err(format!("the ASCII STL file `{name}` has no facets"));
    }
    Ok(Mesh {
        name: name.to_string(),
        vertices: merge.vertices,
        faces,
    })
}

fn parse_obj(b: &[u8], name: &str) -> Result<Mesh, String> {
    let text =
        std::str::from_utf8(b).map_err(|_| format!("the OBJ file `{name}` is not UTF-8 text"))?;
    let mut vertices: Vec<V3> = Vec::new();
    // Face polygons as (line, signed 1-based indices) until the first object or group after
    // faces: MuJoCo's reader uses the first shape only.
    let mut polys: Vec<(usize, Vec<i64>)> = Vec::new();
    let mut first_shape_done = false;
    for (ln, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                let mut v = [0.0; 3];
                for x in v.iter_mut() {
                    let w = words
                        .next()
                        .and_then(|w| w.parse::<f64>().ok())
                        .ok_or_else(|| {
                            format!(
                                "the OBJ file `{name}`, line {}: a vertex needs three numbers",
                                ln + 1
                            )
                        })?;
                    *x = w as f32 as f64;
                }
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(format!(
                        "the OBJ file `{name}`, line {}: a coordinate is not finite",
                        ln + 1
                    ));
                }
                vertices.push(v);
            }
            Some("o") | Some("g") if !polys.is_empty() => first_shape_done = true,
            Some("f") if !first_shape_done => {
                let mut idx = Vec::new();
                for w in words {
                    let first = w.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| {
                        format!(
                            "the OBJ file `{name}`, line {}: bad face index `{w}`",
                            ln + 1
                        )
                    })?;
                    let i = if i < 0 {
                        vertices.len() as i64 + i + 1
                    } else if i == 0 {
                        return Err(format!(
                            "the OBJ file `{name}`, line {}: face index 0 (indices start at 1)",
                            ln + 1
                        ));
                    } else {
                        i
                    };
                    if i < 1 {
                        return Err(format!(
                            "the OBJ file `{name}`, line {}: relative face index `{w}` is before the first vertex",
                            ln + 1
                        ));
                    }
                    idx.push(i);
                }
                if idx.len() < 3 {
                    return Err(format!(
                        "the OBJ file `{name}`, line {}: a face needs at least 3 vertices",
                        ln + 1
                    ));
                }
                polys.push((ln + 1, idx));
            }
            _ => {}
        }
    }
    let n = vertices.len() as i64;
    let mut faces = Vec::new();
    for (ln, idx) in &polys {
        if let Some(i) = idx.iter().find(|&&i| i > n) {
            return Err(format!(
                "the OBJ file `{name}`, line {ln}: face index {i} is beyond the {n} vertices"
            ));
        }
        let k: Vec<u32> = idx.iter().map(|&i| (i - 1) as u32).collect();
        for j in 1..k.len() - 1 {
            faces.push([k[0], k[j], k[j + 1]]);
        }
    }
    Ok(Mesh {
        name: name.to_string(),
        vertices,
        faces,
    })
}

fn parse_msh(b: &[u8], name: &str) -> Result<Mesh, String> {
    if b.len() < 16 {
        return Err(format!(
            "the MSH file `{name}` is truncated: {} bytes, the header needs 16",
            b.len()
        ));
    }
    let h = [0, 4, 8, 12].map(|o| u32_at(b, o) as i32 as i64);
    let [nv, nn, nt, nf] = h;
    if nv < 4 || nn < 0 || nt < 0 || nf < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err(format!(
            "the MSH file `{name}` has invalid sizes (vertices {nv}, normals {nn}, texcoords {nt}, faces {nf})"
        ));
    }
    let need = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf);
    if need != b.len() as i64 {
        return Err(format!(
            "the MSH file `{name}` has {} bytes, but its header needs {need}",
            b.len()
        ));
    }
    let vertices: Vec<V3> = (0..nv as usize)
        .map(|i| [0, 4, 8].map(|o| f32_at(b, 16 + 12 * i + o)))
        .collect();
    let at = 16 + 4 * (3 * nv + 3 * nn + 2 * nt) as usize;
    let mut faces = Vec::with_capacity(nf as usize);
    for i in 0..nf as usize {
        let f = [0, 4, 8].map(|o| u32_at(b, at + 12 * i + o) as i32);
        if let Some(k) = f.iter().find(|&&k| k < 0) {
            return Err(format!(
                "the MSH file `{name}`: face {} has the negative vertex index {k}",
                i + 1
            ));
        }
        faces.push(f.map(|k| k as u32));
    }
    Ok(Mesh {
        name: name.to_string(),
        vertices,
        faces,
    })
}

// ---------------------------------------------------------------------------------------------
// Convex hull

/// Indices `(a, b, c)` of the convex hull's triangles (counter-clockwise seen from outside) and
/// the number of hull vertices, with at most `max_vertices` vertices when given. Errors when the
/// points are all equal, collinear or coplanar (MuJoCo's messages and tolerances).
pub fn convex_hull(
    points: &[V3],
    max_vertices: Option<usize>,
    name: &str,
) -> Result<(Vec<[u32; 3]>, usize), String> {
    degenerate_check(points, name)?;
    let o = |a: usize, b: usize, c: usize, d: usize| -> f64 {
        let c3 = |p: V3| robust::Coord3D {
            x: p[0],
            y: p[1],
            z: p[2],
        };
        robust::orient3d(c3(points[a]), c3(points[b]), c3(points[c]), c3(points[d]))
    };
    // First simplex: the widest pair of axis extremes, the point furthest from their line, the
    // point furthest from that plane (exact orientation decides).
    let n = points.len();
    let mut ext = Vec::new();
    #[allow(clippy::needless_range_loop)] // k is the coordinate, not an index into `points`
    for k in 0..3 {
        let by = |i: &usize, j: &usize| points[*i][k].total_cmp(&points[*j][k]);
        ext.push((0..n).min_by(by).unwrap_or(0));
        ext.push((0..n).max_by(by).unwrap_or(0));
    }
    let (mut i0, mut i1, mut best) = (0, 0, -1.0);
    for &a in &ext {
        for &b in &ext {
            let d = tree::norm(tree::sub(points[a], points[b]));
            if d > best {
                (i0, i1, best) = (a, b, d);
            }
        }
    }
    let line = tree::sub(points[i1], points[i0]);
    let i2 = (0..n)
        .max_by(|&a, &b| {
            let da = tree::norm(tree::cross(line, tree::sub(points[a], points[i0])));
            let db = tree::norm(tree::cross(line, tree::sub(points[b], points[i0])));
            da.total_cmp(&db)
        })
        .unwrap_or(0);
    let i3 = (0..n)
        .max_by(|&a, &b| o(i0, i1, i2, a).abs().total_cmp(&o(i0, i1, i2, b).abs()))
        .unwrap_or(0);
    if o(i0, i1, i2, i3) == 0.0 {
        return Err(format!(
            "mesh `{name}` has coplanar vertices, cannot compute convex hull"
        ));
    }
    struct Face {
        v: [usize; 3],
        alive: bool,
        outside: Vec<usize>,
        normal: V3,
        offset: f64,
    }
    let make = |v: [usize; 3]| -> Face {
        let nrm = tree::cross(
            tree::sub(points[v[1]], points[v[0]]),
            tree::sub(points[v[2]], points[v[0]]),
        );
        Face {
            v,
            alive: true,
            outside: Vec::new(),
            normal: nrm,
            offset: tree::dot(nrm, points[v[0]]),
        }
    };
    let mut faces: Vec<Face> = Vec::new();
    let mut edges: std::collections::HashMap<(usize, usize), usize> =
        std::collections::HashMap::new();
    let simplex = [i0, i1, i2, i3];
    for skip in 0..4 {
        let mut t: Vec<usize> = (0..4).filter(|&k| k != skip).map(|k| simplex[k]).collect();
        if o(t[0], t[1], t[2], simplex[skip]) < 0.0 {
            t.swap(1, 2);
        }
        let f = faces.len();
        for k in 0..3 {
            edges.insert((t[k], t[(k + 1) % 3]), f);
        }
        faces.push(make([t[0], t[1], t[2]]));
    }
    let mut on_hull = vec![false; n];
    for &s in &simplex {
        on_hull[s] = true;
    }
    let mut count = 4;
    for (p, &on) in on_hull.iter().enumerate() {
        if on {
            continue;
        }
        if let Some(f) = (0..4).find(|&f| {
            let v = faces[f].v;
            o(v[0], v[1], v[2], p) < 0.0
        }) {
            faces[f].outside.push(p);
        }
    }
    let dist = |f: &Face, p: usize| tree::dot(f.normal, points[p]) - f.offset;
    let mut work: Vec<usize> = (0..4).collect();
    loop {
        if max_vertices.is_some_and(|m| count >= m) {
            break;
        }
        // The face and its furthest point: globally furthest with a vertex limit (Qhull's Q9),
        // else any face with outside points.
        let pick = if max_vertices.is_some() {
            let mut best: Option<(usize, usize, f64)> = None;
            for (fi, f) in faces.iter().enumerate() {
                if !f.alive {
                    continue;
                }
                for &p in &f.outside {
                    let d = dist(f, p) / tree::norm(f.normal);
                    if best.is_none_or(|b| d > b.2) {
                        best = Some((fi, p, d));
                    }
                }
            }
            best.map(|b| (b.0, b.1))
        } else {
            let mut found = None;
            while let Some(fi) = work.pop() {
                let f = &faces[fi];
                if f.alive && !f.outside.is_empty() {
                    let p = *f
                        .outside
                        .iter()
                        .max_by(|&&a, &&b| dist(f, a).total_cmp(&dist(f, b)))
                        .unwrap_or(&f.outside[0]);
                    found = Some((fi, p));
                    work.push(fi);
                    break;
                }
            }
            found
        };
        let Some((start, p)) = pick else { break };
        // Visible faces (strictly), connected from `start`.
        let mut visible = vec![start];
        faces[start].alive = false;
        let mut k = 0;
        while k < visible.len() {
            let v = faces[visible[k]].v;
            k += 1;
            for e in 0..3 {
                if let Some(&g) = edges.get(&(v[(e + 1) % 3], v[e])) {
                    let w = faces[g].v;
                    if faces[g].alive && o(w[0], w[1], w[2], p) < 0.0 {
                        faces[g].alive = false;
                        visible.push(g);
                    }
                }
            }
        }
        let mut horizon = Vec::new();
        for &f in &visible {
            let v = faces[f].v;
            for e in 0..3 {
                let (a, b) = (v[e], v[(e + 1) % 3]);
                match edges.get(&(b, a)) {
                    Some(&g) if faces[g].alive => horizon.push((a, b)),
                    _ => {}
                }
            }
        }
        for &f in &visible {
            let v = faces[f].v;
            for e in 0..3 {
                edges.remove(&(v[e], v[(e + 1) % 3]));
            }
        }
        let first_new = faces.len();
        for &(a, b) in &horizon {
            let f = faces.len();
            for (x, y) in [(a, b), (b, p), (p, a)] {
                edges.insert((x, y), f);
            }
            faces.push(make([a, b, p]));
        }
        on_hull[p] = true;
        count += 1;
        let orphans: Vec<usize> = visible
            .iter()
            .flat_map(|&f| std::mem::take(&mut faces[f].outside))
            .filter(|&q| q != p)
            .collect();
        for q in orphans {
            if let Some(f) = (first_new..faces.len()).find(|&f| {
                let v = faces[f].v;
                o(v[0], v[1], v[2], q) < 0.0
            }) {
                faces[f].outside.push(q);
            }
        }
        work.extend(first_new..faces.len());
    }
    let tris = faces
        .iter()
        .filter(|f| f.alive)
        .map(|f| f.v.map(|k| k as u32))
        .collect();
    Ok((tris, count))
}

/// MuJoCo's checks before its hull: two distinct points, a non-collinear triple, a point off
/// their plane.
fn degenerate_check(p: &[V3], name: &str) -> Result<(), String> {
    let Some(v1) = (1..p.len()).find(|&i| tree::norm(tree::sub(p[i], p[0])) > MINVAL) else {
        return Err(format!(
            "mesh `{name}` has colocated vertices, cannot compute convex hull"
        ));
    };
    let e1 = tree::sub(p[v1], p[0]);
    let len1 = tree::norm(e1);
    let mut normal = None;
    for (i, q) in p.iter().enumerate().skip(1) {
        if i == v1 {
            continue;
        }
        let e2 = tree::sub(*q, p[0]);
        let len2 = tree::norm(e2);
        if len2 < MINVAL {
            continue;
        }
        let c = tree::cross(e1, e2);
        let nc = tree::norm(c);
        if nc > MINVAL * len1 * len2 {
            normal = Some(tree::scale(1.0 / nc, c));
            break;
        }
    }
    let Some(normal) = normal else {
        return Err(format!(
            "mesh `{name}` has collinear vertices, cannot compute convex hull"
        ));
    };
    let d = tree::dot(normal, p[0]);
    if p.iter()
        .all(|q| (tree::dot(normal, *q) - d).abs() <= MINVAL * len1)
    {
        return Err(format!(
            "mesh `{name}` has coplanar vertices, cannot compute convex hull"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// MuJoCo's small matrix and quaternion steps (same arithmetic order, for the same rounding)

/// MuJoCo's `mjuu_quat2mat` (no normalization; identity special-cased).
pub fn quat_to_mat(q: [f64; 4]) -> M3 {
    if q == [1.0, 0.0, 0.0, 0.0] {
        return tree::IDENTITY;
    }
    let (q00, q01, q02, q03) = (q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]);
    let (q11, q12, q13) = (q[1] * q[1], q[1] * q[2], q[1] * q[3]);
    let (q22, q23, q33) = (q[2] * q[2], q[2] * q[3], q[3] * q[3]);
    [
        [q00 + q11 - q22 - q33, 2.0 * (q12 - q03), 2.0 * (q13 + q02)],
        [2.0 * (q12 + q03), q00 - q11 + q22 - q33, 2.0 * (q23 - q01)],
        [2.0 * (q13 - q02), 2.0 * (q23 + q01), q00 - q11 - q22 + q33],
    ]
}

fn normalize4(q: [f64; 4]) -> [f64; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n < MINVAL {
        return [1.0, 0.0, 0.0, 0.0];
    }
    q.map(|x| x / n)
}

/// The normalized product of two quaternions.
pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    normalize4([
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ])
}

/// Eigenvalues and eigenvector quaternion of a symmetric 3×3 matrix by MuJoCo's Jacobi
/// iteration (`mjuu_eig3`): rotations accumulated as a quaternion from the identity, then
/// sorted decreasing by quarter turns (values within 1e-12 keep their order). The columns of
/// `quat_to_mat(q)` are the eigenvectors.
///
/// The stopping rule is not MuJoCo's published one. MuJoCo 3.12's source stops at an absolute
/// off-diagonal of 1e-12 or a rotation cosine within 1e-12 of 1 (up to ~1e-6 rad left on small
/// meshes); MuJoCo 4.0.0's frames are closer to converged but not fully (its body tensors differ
/// from the exact ones by up to 1e-7 on Menagerie meshes). Stopping at an off-diagonal below
/// 1e-14 of the diagonal's largest entry, or a cosine within 1e-14 of 1, reproduced 4.0.0 best
/// on the reference cases (3e-10; 1e-7 with 3.12's rule, 2e-8 fully converged).
pub fn eig3(m: &M3) -> (V3, [f64; 4]) {
    const E: f64 = 1e-12;
    const REL: f64 = 1e-14;
    let mut q = [1.0, 0.0, 0.0, 0.0];
    let mut val = [0.0; 3];
    for _ in 0..500 {
        let r = quat_to_mat(q);
        let d = tree::mul(&tree::mul(&tree::transpose(&r), m), &r);
        val = [d[0][0], d[1][1], d[2][2]];
        let (rk, ck, axis) = if d[0][1].abs() > d[0][2].abs() && d[0][1].abs() > d[1][2].abs() {
            (0, 1, 2)
        } else if d[0][2].abs() > d[1][2].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let size = d[0][0].abs().max(d[1][1].abs()).max(d[2][2].abs());
        // (MuJoCo: `|d| < 1e-12`, absolute.)
        if d[rk][ck].abs() < REL * size {
            break;
        }
        let tau = (d[ck][ck] - d[rk][rk]) / (2.0 * d[rk][ck]);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / (-tau + (1.0 + tau * tau).sqrt())
        };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if c > 1.0 - REL {
            break;
        }
        let mut s = (0.5 - 0.5 * c).sqrt();
        if tau >= 0.0 {
            s = -s;
        }
        if axis == 1 {
            s = -s;
        }
        let mut rot = [0.0; 4];
        rot[axis + 1] = s;
        rot[0] = (1.0 - s * s).sqrt();
        q = normalize4(quat_mul(q, normalize4(rot)));
    }
    for j in 0..3 {
        let j1 = j % 2;
        if val[j1] + E < val[j1 + 1] {
            val.swap(j1, j1 + 1);
            // MuJoCo's literal for cos(π/4), normalized by the product.
            #[allow(clippy::approx_constant)]
            let h = 0.707106781186548;
            let mut rot = [h, 0.0, 0.0, 0.0];
            rot[(j1 + 2) % 3 + 1] = h;
            q = normalize4(quat_mul(q, rot));
        }
    }
    (val, q)
}

/// Area, centre and unit normal of a triangle; area 0 (and a zero normal) below MuJoCo's
/// `mjMINVAL`.
fn triangle(a: V3, b: V3, c: V3) -> (f64, V3, V3) {
    let center = [
        (a[0] + b[0] + c[0]) / 3.0,
        (a[1] + b[1] + c[1]) / 3.0,
        (a[2] + b[2] + c[2]) / 3.0,
    ];
    let n = tree::cross(tree::sub(b, a), tree::sub(c, a));
    let len = tree::norm(n);
    if len < MINVAL {
        return (0.0, center, n);
    }
    (0.5 * len, center, tree::scale(1.0 / len, n))
}

// ---------------------------------------------------------------------------------------------
// Mass properties

/// [`mass_properties_with`] with only `scale` and `inertia` set.
#[cfg_attr(not(test), allow(dead_code))]
pub fn mass_properties(mesh: &Mesh, scale: V3, mode: InertiaMode) -> Result<MeshMass, String> {
    mass_properties_with(
        mesh,
        &MeshParams {
            scale,
            inertia: mode,
            ..MeshParams::default()
        },
    )
}

/// The mass properties of a mesh per unit density as MuJoCo's compiler computes them, with its
/// errors (inconsistent orientation for `exact`, too small area or volume, negative volume,
/// principal moments violating the triangle inequality).
pub fn mass_properties_with(mesh: &Mesh, params: &MeshParams) -> Result<MeshMass, String> {
    let name = &mesh.name;
    let mode = params.inertia;
    if params.maxhullvert.is_some_and(|m| m < 4) {
        return Err(format!("mesh `{name}`: maxhullvert must be at least 4"));
    }
    let raw = &mesh.vertices;
    let face_area =
        |f: &[u32; 3], v: &[V3]| triangle(v[f[0] as usize], v[f[1] as usize], v[f[2] as usize]).0;
    if mode == InertiaMode::Exact {
        let mut half: Vec<(u32, u32)> = Vec::new();
        for f in &mesh.faces {
            if face_area(f, raw) > MINVAL.sqrt() {
                half.extend([(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
            }
        }
        half.sort_unstable();
        if let Some(w) = half.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "faces of mesh `{name}` have inconsistent orientation (the faces with vertices {} and {})",
                w[0].0 + 1,
                w[0].1 + 1
            ));
        }
    }
    let need_hull = mode == InertiaMode::Convex || mesh.faces.is_empty();
    let hull = if need_hull {
        Some(convex_hull(raw, params.maxhullvert, name)?.0)
    } else {
        None
    };
    let s = params.scale;
    let mut faces = if mesh.faces.is_empty() {
        hull.clone().unwrap_or_default()
    } else {
        mesh.faces.clone()
    };
    // A left-handed scale reverses the faces (and the hull's, as MuJoCo 4.0.0 does).
    let mut hull = hull;
    if s[0] * s[1] * s[2] <= 0.0 {
        for f in faces.iter_mut().chain(hull.iter_mut().flatten()) {
            f.swap(1, 2);
        }
    }
    // refpos, refquat, scale.
    let q = params.refquat;
    let rotate = q != [1.0, 0.0, 0.0, 0.0];
    let r = quat_to_mat(normalize4(q));
    let vert: Vec<V3> = raw
        .iter()
        .map(|v| {
            let mut v = tree::sub(*v, params.refpos);
            if rotate {
                v = tree::mul_v(&tree::transpose(&r), v);
            }
            [v[0] * s[0], v[1] * s[1], v[2] * s[2]]
        })
        .collect();
    let at = |f: &[u32; 3]| {
        (
            vert[f[0] as usize],
            vert[f[1] as usize],
            vert[f[2] as usize],
        )
    };
    // Area-weighted centroid of the faces.
    let mut facecen = [0.0; 3];
    let mut area = 0.0;
    for f in &faces {
        let (a, b, c) = at(f);
        let (ar, cen, _) = triangle(a, b, c);
        facecen = tree::add(facecen, tree::scale(ar, cen));
        area += ar;
    }
    if area < MINVAL {
        return Err(format!("mesh `{name}`: its surface area is too small"));
    }
    facecen = tree::scale(1.0 / area, facecen);
    let solid_faces: &[[u32; 3]] = match (&hull, mode) {
        (Some(h), InertiaMode::Convex) => h,
        _ => &faces,
    };
    // Volume (or area) and centre of mass.
    let mut com = [0.0; 3];
    let mut total = 0.0;
    let mesh_faces: &[[u32; 3]] = if mode == InertiaMode::Shell {
        &faces
    } else {
        solid_faces
    };
    for f in mesh_faces {
        let (a, b, c) = at(f);
        let (ar, cen, nrm) = triangle(a, b, c);
        let mut w = if mode == InertiaMode::Shell {
            ar
        } else {
            tree::dot(tree::sub(cen, facecen), nrm) * ar / 3.0
        };
        if mode == InertiaMode::Legacy {
            w = w.abs();
        }
        total += w;
        for k in 0..3 {
            com[k] += w * (cen[k] * 3.0 / 4.0 + facecen[k] / 4.0);
        }
    }
    if total >= MINVAL {
        com = tree::scale(1.0 / total, com);
    }
    if total < MINVAL {
        return Err(if mode == InertiaMode::Shell {
            format!("mesh `{name}`: its surface area is too small")
        } else if total < 0.0 {
            format!("mesh `{name}`: its volume is negative (misoriented faces)")
        } else {
            format!("mesh `{name}`: its volume is too small (try inertia=\"shell\")")
        });
    }
    // Second moments about the centre of mass.
    let centered: Vec<V3> = vert.iter().map(|v| tree::sub(*v, com)).collect();
    let pairs = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
    let mut pm = [0.0; 6];
    let mut measure = 0.0;
    let divisor = if mode == InertiaMode::Shell {
        12.0
    } else {
        20.0
    };
    for f in mesh_faces {
        let (d, e, g) = (
            centered[f[0] as usize],
            centered[f[1] as usize],
            centered[f[2] as usize],
        );
        let (ar, cen, nrm) = triangle(d, e, g);
        let mut w = if mode == InertiaMode::Shell {
            ar
        } else {
            tree::dot(cen, nrm) * ar / 3.0
        };
        if mode == InertiaMode::Legacy {
            w = w.abs();
        }
        measure += w;
        for (j, &(a, b)) in pairs.iter().enumerate() {
            pm[j] += w / divisor
                * (2.0 * (d[a] * d[b] + e[a] * e[b] + g[a] * g[b])
                    + d[a] * e[b]
                    + d[b] * e[a]
                    + d[a] * g[b]
                    + d[b] * g[a]
                    + e[a] * g[b]
                    + e[b] * g[a]);
        }
    }
    let inertia = [
        [pm[1] + pm[2], -pm[3], -pm[4]],
        [-pm[3], pm[0] + pm[2], -pm[5]],
        [-pm[4], -pm[5], pm[0] + pm[1]],
    ];
    let (ev, quat) = eig3(&inertia);
    if ev[2] <= 0.0 {
        return Err(format!(
            "mesh `{name}`: a principal moment of its inertia is not positive"
        ));
    }
    let (rt, at_) = (1e-6, 1e-9);
    if ev[0] + ev[1] < ev[2] * (1.0 - rt) - at_
        || ev[0] + ev[2] < ev[1] * (1.0 - rt) - at_
        || ev[1] + ev[2] < ev[0] * (1.0 - rt) - at_
    {
        return Err(format!(
            "mesh `{name}`: its principal moments violate A + B >= C"
        ));
    }
    let box_half = [
        0.5 * (6.0 * (ev[1] + ev[2] - ev[0]) / measure).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[2] - ev[1]) / measure).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[1] - ev[2]) / measure).sqrt(),
    ];
    let frame_rot = quat_to_mat(quat);
    let back = quat_to_mat([quat[0], -quat[1], -quat[2], -quat[3]]);
    let mut aabb: [V3; 2] = [[1e10; 3], [-1e10; 3]];
    for v in &centered {
        let p = tree::mul_v(&back, *v);
        for k in 0..3 {
            aabb[0][k] = aabb[0][k].min(p[k]);
            aabb[1][k] = aabb[1][k].max(p[k]);
        }
    }
    Ok(MeshMass {
        measure,
        com,
        inertia,
        principal: ev,
        frame_pos: com,
        frame_quat: quat,
        frame_rot,
        box_half,
        aabb,
    })
}

/// How a geom's mass is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSpec {
    /// `mass`.
    Mass(f64),
    /// `density` (MuJoCo's default 1000).
    Density(f64),
}

/// A mesh geom's mass, centre of mass and inertia about it in the body frame, given the geom's
/// `pos` and rotation in the body: MuJoCo's path (the geom moved to the mesh's principal frame,
/// principal moments from the equivalent inertia box).
pub fn mesh_geom_mass(pos: V3, rot: &M3, mass: MassSpec, mm: &MeshMass) -> (f64, V3, M3) {
    let m = match mass {
        MassSpec::Mass(m) if mm.measure > EPS => m,
        MassSpec::Mass(_) => 0.0,
        MassSpec::Density(d) => d * mm.measure,
    };
    let b = mm.box_half;
    let diag = [
        m * (b[1] * b[1] + b[2] * b[2]) / 3.0,
        m * (b[0] * b[0] + b[2] * b[2]) / 3.0,
        m * (b[0] * b[0] + b[1] * b[1]) / 3.0,
    ];
    let com = tree::add(pos, tree::mul_v(rot, mm.frame_pos));
    let r = tree::mul(rot, &mm.frame_rot);
    (m, com, tree::rotate_inertia(&r, &tree::diag(diag)))
}

/// The primitive geom types MuJoCo fits to a mesh and gives shell inertia.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Primitive {
    /// `sphere`: size `[radius]`.
    Sphere,
    /// `capsule`: `[radius, half length]`.
    Capsule,
    /// `cylinder`: `[radius, half length]`.
    Cylinder,
    /// `ellipsoid`: three semi-axes.
    Ellipsoid,
    /// `box`: three half sizes.
    Box,
}

impl Primitive {
    /// The primitive of an MJCF geom `type`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "sphere" => Self::Sphere,
            "capsule" => Self::Capsule,
            "cylinder" => Self::Cylinder,
            "ellipsoid" => Self::Ellipsoid,
            "box" => Self::Box,
            _ => return None,
        })
    }
}

/// A primitive geom fitted to a mesh: its size and its pose relative to the geom's own
/// `pos`/orientation (the geom ends at `geom ∘ (pos, rot)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The fitted `size` (unused entries 0).
    pub size: V3,
    /// Offset in the geom's frame.
    pub pos: V3,
    /// Rotation relative to the geom's frame.
    pub rot: M3,
}

/// MuJoCo's fitting of `<geom type=".." mesh="..">` (no `size`): from the equivalent inertia
/// box, or with `<compiler fitaabb="true">` the smallest primitive whose bounding box holds the
/// mesh's bounding box in the principal frame (and centred on it); sizes times `fitscale`.
pub fn fit_primitive(kind: Primitive, mm: &MeshMass, fitaabb: bool, fitscale: f64) -> Fit {
    let mut size = [0.0; 3];
    let mut center = [0.0; 3];
    if !fitaabb {
        let b = mm.box_half;
        match kind {
            Primitive::Sphere => size[0] = (b[0] + b[1] + b[2]) / 3.0,
            Primitive::Capsule => {
                size[0] = (b[0] + b[1]) / 2.0;
                size[1] = (b[2] - size[0] / 2.0).max(0.0);
            }
            Primitive::Cylinder => {
                size[0] = (b[0] + b[1]) / 2.0;
                size[1] = b[2];
            }
            Primitive::Ellipsoid | Primitive::Box => size = b,
        }
    } else {
        let [lo, hi] = mm.aabb;
        for k in 0..3 {
            center[k] = (lo[k] + hi[k]) / 2.0;
        }
        let h = [hi[0] - center[0], hi[1] - center[1], hi[2] - center[2]];
        match kind {
            Primitive::Sphere => size[0] = h[0].max(h[1]).max(h[2]),
            Primitive::Capsule | Primitive::Cylinder => {
                size[0] = h[0].max(h[1]);
                size[1] = h[2];
                if kind == Primitive::Capsule {
                    size[1] -= size[0];
                }
            }
            Primitive::Ellipsoid | Primitive::Box => size = h,
        }
    }
    Fit {
        size: size.map(|x| x * fitscale),
        pos: tree::add(mm.frame_pos, tree::mul_v(&mm.frame_rot, center)),
        rot: mm.frame_rot,
    }
}

/// Volume and principal inertia per unit mass of a solid primitive (MuJoCo's formulas).
#[cfg_attr(not(test), allow(dead_code))]
pub fn primitive_solid(kind: Primitive, size: V3) -> (f64, V3) {
    use std::f64::consts::PI;
    let [a, b, c] = size;
    match kind {
        Primitive::Sphere => (4.0 * PI * a * a * a / 3.0, [2.0 * a * a / 5.0; 3]),
        Primitive::Capsule => {
            let (r, h) = (a, 2.0 * b);
            let ms = 4.0 * r / (4.0 * r + 3.0 * h);
            let mc = 1.0 - ms;
            let sph = 2.0 * ms * r * r / 5.0;
            let side = mc * (3.0 * r * r + h * h) / 12.0 + sph + ms * h * (3.0 * r + 2.0 * h) / 8.0;
            (
                PI * (r * r * h + 4.0 * r * r * r / 3.0),
                [side, side, mc * r * r / 2.0 + sph],
            )
        }
        Primitive::Cylinder => {
            let (r, h) = (a, 2.0 * b);
            let side = (3.0 * r * r + h * h) / 12.0;
            (PI * r * r * h, [side, side, r * r / 2.0])
        }
        Primitive::Ellipsoid => (
            4.0 * PI * a * b * c / 3.0,
            [
                (b * b + c * c) / 5.0,
                (a * a + c * c) / 5.0,
                (a * a + b * b) / 5.0,
            ],
        ),
        Primitive::Box => (
            8.0 * a * b * c,
            [
                (b * b + c * c) / 3.0,
                (a * a + c * c) / 3.0,
                (a * a + b * b) / 3.0,
            ],
        ),
    }
}

/// Area and principal inertia per unit mass of a primitive with `shellinertia="true"`, as
/// MuJoCo computes them: all five types are supported (sphere, capsule: cylinder and two
/// hemispherical shells, cylinder: side and two disks, box: six plates, ellipsoid: Thomsen's
/// area approximation and the difference of two solids 1e-6 apart for the inertia). A mesh
/// geom with `shellinertia` is an error in MuJoCo (`<mesh inertia="shell">` instead).
pub fn primitive_shell(kind: Primitive, size: V3) -> (f64, V3) {
    use std::f64::consts::PI;
    let [a, b, c] = size;
    match kind {
        Primitive::Sphere => (4.0 * PI * a * a, [2.0 * a * a / 3.0; 3]),
        Primitive::Capsule => {
            let (r, hh, h) = (a, b, 2.0 * b);
            let asph = 4.0 * PI * r * r;
            let acyl = 2.0 * PI * r * h;
            let ms = asph / (asph + acyl);
            let mc = 1.0 - ms;
            let side_c = mc * (6.0 * r * r + h * h) / 12.0;
            let sph = 2.0 * ms * r * r / 3.0;
            let hs_com = r / 2.0;
            let hs_pos = hh + hs_com;
            let side = side_c + sph + ms * (hs_pos * hs_pos - hs_com * hs_com);
            (asph + acyl, [side, side, mc * r * r + sph])
        }
        Primitive::Cylinder => {
            let (r, hh, h) = (a, b, 2.0 * b);
            let adisk = PI * r * r;
            let acyl = 2.0 * PI * r * h;
            let total = 2.0 * adisk + acyl;
            let md = adisk / total;
            let mc = 1.0 - 2.0 * md;
            let dx = md * r * r / 4.0 + md * hh * hh;
            let dz = md * r * r / 2.0;
            let side = mc * (6.0 * r * r + h * h) / 12.0 + 2.0 * dx;
            (total, [side, side, mc * r * r + 2.0 * dz])
        }
        Primitive::Ellipsoid => {
            let p = 1.6075;
            let t = (a * b).powf(p) + (b * c).powf(p) + (c * a).powf(p);
            let area = 4.0 * PI * (t / 3.0).powf(1.0 / p);
            let eps = 1e-6;
            let va = 4.0 * PI * a * b * c / 3.0;
            let (ae, be, ce) = (a + eps, b + eps, c + eps);
            let vb = 4.0 * PI * ae * be * ce / 3.0;
            let rho = 1.0 / (vb - va);
            let (ma, mb) = (va * rho, vb * rho);
            (
                area,
                [
                    mb * (be * be + ce * ce) / 5.0 - ma * (b * b + c * c) / 5.0,
                    mb * (ae * ae + ce * ce) / 5.0 - ma * (a * a + c * c) / 5.0,
                    mb * (ae * ae + be * be) / 5.0 - ma * (a * a + b * b) / 5.0,
                ],
            )
        }
        Primitive::Box => {
            let (lx, ly, lz) = (2.0 * a, 2.0 * b, 2.0 * c);
            let (a0, a1, a2) = (lx * ly, ly * lz, lz * lx);
            let total = 2.0 * (a0 + a1 + a2);
            let (m0, m1, m2) = (a0 / total, a1 / total, a2 / total);
            let (s00, s11, s22) = (a * a, b * b, c * c);
            let ix = m0 * ly * ly / 12.0 + m1 * (ly * ly + lz * lz) / 12.0 + m2 * lz * lz / 12.0;
            let iy = m0 * lx * lx / 12.0 + m1 * lz * lz / 12.0 + m2 * (lx * lx + lz * lz) / 12.0;
            let iz = m0 * (lx * lx + ly * ly) / 12.0 + m1 * ly * ly / 12.0 + m2 * lx * lx / 12.0;
            (
                total,
                [
                    2.0 * (m0 * s22 + m2 * s11 + ix),
                    2.0 * (m0 * s22 + m1 * s00 + iy),
                    2.0 * (m1 * s00 + m2 * s11 + iz),
                ],
            )
        }
    }
}
