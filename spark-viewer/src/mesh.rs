//! Triangle meshes: read from STL (`stl_io`) and OBJ (`tobj`) files, and decimated by vertex
//! clustering to a triangle budget.

use std::collections::HashMap;
use std::path::Path;

use crate::ViewerError;

/// An indexed triangle mesh.
///
/// ```
/// use spark_viewer::Triangles;
/// let t = Triangles { vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], triangles: vec![[0, 1, 2]] };
/// assert_eq!(t.bounds(), Some(([0.0; 3], [1.0, 1.0, 0.0])));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Triangles {
    /// Vertex positions.
    pub vertices: Vec<[f64; 3]>,
    /// Vertex indices, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

impl Triangles {
    /// The smallest and largest coordinates (`None` when empty).
    ///
    /// ```
    /// # use spark_viewer::Triangles;
    /// assert_eq!(Triangles::default().bounds(), None);
    /// ```
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let first = *self.vertices.first()?;
        let mut lo = first;
        let mut hi = first;
        for v in &self.vertices {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        Some((lo, hi))
    }

    /// At most `budget` triangles: vertices merged on a grid (vertex clustering), made coarser
    /// until the mesh fits; degenerate triangles dropped. A mesh within budget is unchanged.
    ///
    /// ```
    /// # use spark_viewer::Triangles;
    /// let mut t = Triangles::default();
    /// for i in 0..100u32 {
    ///     let x = i as f64 * 0.01;
    ///     t.vertices.extend([[x, 0.0, 0.0], [x + 0.01, 0.0, 0.0], [x, 1.0, 0.0]]);
    ///     t.triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
    /// }
    /// assert!(t.decimated(10).triangles.len() <= 10);
    /// ```
    pub fn decimated(&self, budget: usize) -> Triangles {
        if self.triangles.len() <= budget {
            return self.clone();
        }
        let Some((lo, hi)) = self.bounds() else {
            return self.clone();
        };
        let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0f64, f64::max);
        let mut cells = 64.0f64;
        loop {
            let size = extent / cells;
            let mut index: HashMap<[i64; 3], u32> = HashMap::new();
            let mut sums: Vec<([f64; 3], f64)> = Vec::new();
            let map: Vec<u32> = self
                .vertices
                .iter()
                .map(|v| {
                    let key = std::array::from_fn(|k| ((v[k] - lo[k]) / size).floor() as i64);
                    let id = *index.entry(key).or_insert_with(|| {
                        sums.push(([0.0; 3], 0.0));
                        (sums.len() - 1) as u32
                    });
                    let s = &mut sums[id as usize];
                    for k in 0..3 {
                        s.0[k] += v[k];
                    }
                    s.1 += 1.0;
                    id
                })
                .collect();
            let mut seen = std::collections::HashSet::new();
            let triangles: Vec<[u32; 3]> = self
                .triangles
                .iter()
                .map(|t| t.map(|i| map[i as usize]))
                .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
                .filter(|t| {
                    let mut key = *t;
                    key.sort_unstable();
                    seen.insert(key)
                })
                .collect();
            if triangles.len() <= budget || cells <= 2.0 {
                let vertices = sums
                    .iter()
                    .map(|(s, n)| s.map(|x| x / n))
                    .collect::<Vec<_>>();
                return Triangles {
                    vertices,
                    triangles,
                };
            }
            cells *= 0.7;
        }
    }
}

/// Reads a mesh file: binary or ASCII STL (`.stl`) or Wavefront OBJ (`.obj`), by extension.
///
/// ```
/// let dir = std::env::temp_dir().join("spark-viewer-doc-mesh");
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("tri.obj");
/// std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
/// let t = spark_viewer::load_mesh(&path).unwrap();
/// assert_eq!(t.triangles, [[0, 1, 2]]);
/// assert!(spark_viewer::load_mesh(dir.join("missing.stl")).is_err());
/// ```
pub fn load_mesh(path: impl AsRef<Path>) -> Result<Triangles, ViewerError> {
    let path = path.as_ref();
    let err = |reason: String| ViewerError::Mesh {
        path: path.display().to_string(),
        reason,
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "stl" => {
            let mut file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
            let mesh = stl_io::read_stl(&mut file).map_err(|e| err(e.to_string()))?;
            Ok(Triangles {
                vertices: mesh
                    .vertices
                    .iter()
                    .map(|v| [v[0] as f64, v[1] as f64, v[2] as f64])
                    .collect(),
                triangles: mesh
                    .faces
                    .iter()
                    .map(|f| f.vertices.map(|i| i as u32))
                    .collect(),
            })
        }
        "obj" => {
            let options = tobj::LoadOptions {
                triangulate: true,
                single_index: true,
                ..Default::default()
            };
            let (models, _) = tobj::load_obj(path, &options).map_err(|e| err(e.to_string()))?;
            let mut out = Triangles::default();
            for m in models {
                let base = out.vertices.len() as u32;
                let p = &m.mesh.positions;
                out.vertices.extend(
                    p.chunks_exact(3)
                        .map(|v| [v[0] as f64, v[1] as f64, v[2] as f64]),
                );
                out.triangles.extend(
                    m.mesh
                        .indices
                        .chunks_exact(3)
                        .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
                );
            }
            Ok(out)
        }
        other => Err(err(format!("the format `.{other}` is not read"))),
    }
}
