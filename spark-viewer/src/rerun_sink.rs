//! Rerun recordings (feature `rerun`): the entity `world` (z up), one entity per body
//! `world/<body>` with its pose as a `Transform3D` on the timeline `time` (seconds), each
//! visual a child `world/<body>/visual_<k>` with its static pose in the body and its shape (a
//! mesh file as an `Asset3D`, a primitive as a `Mesh3D`), visuals of the world under
//! `world/fixed/visual_<k>`, and each series as `Scalars` under `series/<name>`.

use rerun::RecordingStream;
use spark::geometry::{Geometry, Pose, Shape, Visual};

use crate::html::triangles;
use crate::{BodyPose, Recording, ViewerError};

fn rerun_error(e: impl std::fmt::Display) -> ViewerError {
    ViewerError::Rerun(e.to_string())
}

/// An entity path part: the name with `/` and spaces replaced.
fn part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

fn transform(p: &Pose) -> rerun::Transform3D {
    let cols: [[f32; 3]; 3] =
        std::array::from_fn(|j| std::array::from_fn(|i| p.rotation[i][j] as f32));
    let t = p.position.map(|x| x as f32);
    rerun::Transform3D::from_translation_mat3x3(t, rerun::datatypes::Mat3x3::from(cols))
}

/// The entity path of body `name`.
fn body_path(name: &str) -> String {
    format!("world/{}", part(name))
}

/// Logs the static scene: the world's axes (z up) and every visual under its body.
fn log_geometry(
    stream: &RecordingStream,
    body_names: &[&str],
    visuals: &[Visual],
) -> Result<Vec<String>, ViewerError> {
    let mut warnings = Vec::new();
    stream
        .log_static("world", &rerun::ViewCoordinates::RIGHT_HAND_Z_UP())
        .map_err(rerun_error)?;
    let mut parts = Vec::new();
    for (k, v) in visuals.iter().enumerate() {
        let parent = match v.body {
            Some(b) => body_path(body_names[b]),
            None => "world/fixed".into(),
        };
        let path = format!("{parent}/visual_{k}");
        stream
            .log_static(path.as_str(), &transform(&v.pose))
            .map_err(rerun_error)?;
        let rgba = v.rgba.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        if let Shape::Mesh { path: file, scale } = v.shape {
            match rerun::Asset3D::from_file_path(file) {
                Ok(asset) => {
                    let scaled = rerun::Transform3D::from_scale(scale.map(|x| x as f32));
                    let inner = format!("{path}/mesh");
                    stream
                        .log_static(inner.as_str(), &scaled)
                        .map_err(rerun_error)?;
                    stream
                        .log_static(inner.as_str(), &asset.with_albedo_factor(rgba))
                        .map_err(rerun_error)?;
                }
                Err(e) => warnings.push(format!(
                    "visual `{}` left out: cannot read the mesh `{file}`: {e}",
                    v.name
                )),
            }
            continue;
        }
        parts.push((path, *v, rgba));
    }
    // Primitives as meshes in the visual's own frame (its pose is the entity's transform).
    let own: Vec<Visual> = parts
        .iter()
        .map(|(_, v, _)| Visual {
            pose: Pose::IDENTITY,
            ..*v
        })
        .collect();
    for ((path, _, rgba), (_, t)) in parts.iter().zip(triangles(&own, 2.0, &mut warnings)) {
        let mesh = rerun::Mesh3D::new(t.vertices.iter().map(|p| p.map(|x| x as f32)))
            .with_triangle_indices(t.triangles.iter().copied())
            .with_vertex_normals(vertex_normals(&t))
            .with_albedo_factor(*rgba);
        stream
            .log_static(path.as_str(), &mesh)
            .map_err(rerun_error)?;
    }
    Ok(warnings)
}

/// A live Rerun stream of a simulation: the geometry logged once, then each frame and
/// scalar as it comes (on the timeline `time`, in seconds).
///
/// ```
/// # use spark_viewer::{RerunLive, Geometry, Pose, Shape, Visual};
/// # use spark::nalgebra::{Matrix3, Vector3};
/// const BALL: [Visual; 1] = [Visual { body: Some(0), name: "ball", shape: Shape::Sphere { radius: 0.1 }, pose: Pose::IDENTITY, rgba: [0.9, 0.2, 0.2, 1.0] }];
/// const G: Geometry = Geometry { body_names: &["ball"], body_parents: &[None], visuals: &BALL, skeleton: &[], joints: &[], sites: &[] };
/// let (stream, storage) = rerun::RecordingStreamBuilder::new("doc").memory().unwrap();
/// let mut live = RerunLive::new(stream, &G).unwrap();
/// live.frame(0.0, &[(Vector3::zeros(), Matrix3::identity())]).unwrap();
/// live.scalar("height", 0.0, 0.0).unwrap();
/// assert!(storage.take().len() > 1);
/// ```
pub struct RerunLive {
    stream: RecordingStream,
    paths: Vec<String>,
    warnings: Vec<String>,
}

impl RerunLive {
    /// Logs the geometry's drawing ([`spark::geometry::Geometry::drawing`]) to `stream`
    /// (from `rerun::RecordingStreamBuilder::new(..).spawn()`, `.connect_grpc()`, `.save(..)`
    /// or `.memory()`).
    pub fn new(stream: RecordingStream, geometry: &Geometry) -> Result<Self, ViewerError> {
        Self::with_visuals(stream, geometry, geometry.drawing())
    }

    /// Logs `visuals` instead of the geometry's drawing.
    ///
    /// ```
    /// # use spark_viewer::{RerunLive, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let (stream, _storage) = rerun::RecordingStreamBuilder::new("doc").memory().unwrap();
    /// let live = RerunLive::with_visuals(stream, &G, G.skeleton).unwrap();
    /// assert!(live.warnings().is_empty());
    /// ```
    pub fn with_visuals(
        stream: RecordingStream,
        geometry: &Geometry,
        visuals: &[Visual],
    ) -> Result<Self, ViewerError> {
        let warnings = log_geometry(&stream, geometry.body_names, visuals)?;
        Ok(RerunLive {
            stream,
            paths: geometry.body_names.iter().map(|n| body_path(n)).collect(),
            warnings,
        })
    }

    /// The visuals left out and why.
    ///
    /// ```
    /// # use spark_viewer::{RerunLive, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// # let (stream, _storage) = rerun::RecordingStreamBuilder::new("doc").memory().unwrap();
    /// assert!(RerunLive::new(stream, &G).unwrap().warnings().is_empty());
    /// ```
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Logs the bodies' poses at time `t` (the model's `body_poses(&state.q)`).
    pub fn frame(&mut self, t: f64, poses: &[BodyPose]) -> Result<(), ViewerError> {
        if poses.len() != self.paths.len() {
            return Err(ViewerError::PoseCount {
                expected: self.paths.len(),
                got: poses.len(),
            });
        }
        self.stream.set_duration_secs("time", t);
        for (path, p) in self.paths.iter().zip(poses) {
            self.stream
                .log(path.as_str(), &transform(&crate::pose_of(p)))
                .map_err(rerun_error)?;
        }
        Ok(())
    }

    /// Logs `value` at time `t` to the series `series/<name>`.
    pub fn scalar(&mut self, name: &str, t: f64, value: f64) -> Result<(), ViewerError> {
        self.stream.set_duration_secs("time", t);
        let path = format!("series/{}", part(name));
        self.stream
            .log(path.as_str(), &rerun::Scalars::single(value))
            .map_err(rerun_error)
    }

    /// The stream (to log more, or to flush it).
    ///
    /// ```
    /// # use spark_viewer::{RerunLive, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// # let (stream, _storage) = rerun::RecordingStreamBuilder::new("doc").memory().unwrap();
    /// let live = RerunLive::new(stream, &G).unwrap();
    /// live.stream().flush_blocking();
    /// ```
    pub fn stream(&self) -> &RecordingStream {
        &self.stream
    }
}

impl Recording {
    /// Logs the whole recording to a Rerun stream: the drawing as static data, then every
    /// frame's body transforms and every series on the timeline `time`. Returns the warnings
    /// (visuals left out).
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry, Pose, Shape, Visual};
    /// # use spark::nalgebra::{Matrix3, Vector3};
    /// const BALL: [Visual; 1] = [Visual { body: Some(0), name: "ball", shape: Shape::Sphere { radius: 0.1 }, pose: Pose::IDENTITY, rgba: [0.9, 0.2, 0.2, 1.0] }];
    /// const G: Geometry = Geometry { body_names: &["ball"], body_parents: &[None], visuals: &BALL, skeleton: &[], joints: &[], sites: &[] };
    /// let mut rec = Recording::new("a ball", &G);
    /// rec.frame(0.0, &[(Vector3::zeros(), Matrix3::identity())]).unwrap();
    /// let (stream, storage) = rerun::RecordingStreamBuilder::new("doc").memory().unwrap();
    /// rec.log_to(&stream).unwrap();
    /// assert!(storage.take().len() > 1);
    /// ```
    pub fn log_to(&self, stream: &RecordingStream) -> Result<Vec<String>, ViewerError> {
        if self.is_empty() {
            return Err(ViewerError::Empty);
        }
        let warnings = log_geometry(stream, self.geometry().body_names, self.visuals())?;
        let paths: Vec<String> = self
            .geometry()
            .body_names
            .iter()
            .map(|n| body_path(n))
            .collect();
        for k in 0..self.len() {
            stream.set_duration_secs("time", self.times()[k]);
            for (path, p) in paths.iter().zip(self.poses(k)) {
                stream
                    .log(path.as_str(), &transform(p))
                    .map_err(rerun_error)?;
            }
        }
        for s in self.series() {
            let path = format!("series/{}", part(&s.name));
            for &(t, y) in &s.points {
                stream.set_duration_secs("time", t);
                stream
                    .log(path.as_str(), &rerun::Scalars::single(y))
                    .map_err(rerun_error)?;
            }
        }
        stream.flush_blocking();
        Ok(warnings)
    }

    /// Writes the recording as a Rerun `.rrd` file (its directory is created); open it with
    /// `rerun file.rrd`. Prints the warnings to stderr and returns them.
    ///
    /// ```no_run
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// # let rec = Recording::new("t", &G);
    /// rec.write_rrd("examples/out/model.rrd")?;
    /// # Ok::<(), spark_viewer::ViewerError>(())
    /// ```
    pub fn write_rrd(&self, path: impl AsRef<std::path::Path>) -> Result<Vec<String>, ViewerError> {
        let path = path.as_ref();
        if self.is_empty() {
            return Err(ViewerError::Empty);
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|error| ViewerError::Io {
                path: path.display().to_string(),
                error,
            })?;
        }
        let stream = rerun::RecordingStreamBuilder::new(format!("spark: {}", self.title()))
            .save(path)
            .map_err(rerun_error)?;
        let warnings = self.log_to(&stream)?;
        stream.flush_blocking();
        drop(stream);
        for w in &warnings {
            eprintln!("spark-viewer: warning: {w}");
        }
        Ok(warnings)
    }
}

/// Per-vertex normals: the area-weighted mean of the faces' normals.
fn vertex_normals(t: &crate::Triangles) -> Vec<[f32; 3]> {
    let mut n = vec![[0.0f64; 3]; t.vertices.len()];
    for tri in &t.triangles {
        let [a, b, c] = tri.map(|i| t.vertices[i as usize]);
        let (u, v) = (
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        let f = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        for &i in tri {
            for k in 0..3 {
                n[i as usize][k] += f[k];
            }
        }
    }
    n.iter()
        .map(|v| {
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.0 {
                v.map(|x| (x / l) as f32)
            } else {
                [0.0, 0.0, 1.0]
            }
        })
        .collect()
}
