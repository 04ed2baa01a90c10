//! See a spark mechanism move.
//!
//! A [`Recording`] collects a model's body poses over time (what the model's generated
//! `body_poses(q)` returns at each state) together with its geometry (the `GEOMETRY` constant
//! that `mechanics!` emits for every model made of bodies: a URDF, an MJCF file or a
//! `bodies:`/`joints:` mechanism), and scalars such as an energy error or a constraint
//! residual. It then writes
//!
//! - a self-contained HTML animation ([`Recording::write_html`]): one file, every script and
//!   every triangle inside it, nothing fetched over the network; a 3D view to orbit (drag), zoom
//!   (wheel), play, pause and scrub; the URL hash `#t=0.5&paused` opens it at a time;
//! - with the feature `rerun`, a Rerun recording (`Recording::write_rrd`, or
//!   `Recording::log_to` a stream; `RerunLive` logs a simulation as it runs): meshes as 3D
//!   assets, primitives as meshes, poses as transforms, scalars as time series.
//!
//! ```
//! use spark::{GaussLobatto, Integrator, State};
//! use spark_viewer::Recording;
//!
//! spark::mechanics! {
//!     /// A rod on a hinge.
//!     pub struct Rod {
//!         bodies: { rod: Body { mass: 1.0, com: [0.0, 0.0, -0.5], inertia: [0.08, 0.08, 0.001] } },
//!         joints: { hinge: Revolute { parent: world, child: rod, axis: [0.0, 1.0, 0.0] } },
//!     }
//! }
//!
//! let mut sim = Integrator::<Rod, GaussLobatto<2>>::new(Rod::default(), 0.01).unwrap();
//! let mut s = State::new(0.0, [1.0], [0.0]);
//! let mut rec = Recording::new("a rod", &Rod::GEOMETRY);
//! for _ in 0..50 {
//!     rec.frame(s.t, &Rod::body_poses(&s.q)).unwrap();
//!     sim.step(&mut s).unwrap();
//! }
//! let page = rec.html().unwrap();
//! assert!(page.html.contains("<canvas") && !page.html.contains("https://"));
//! ```

#![warn(missing_docs)]
// Component loops over 3-vectors (`for k in 0..3`) read as the formulas they implement.
#![allow(clippy::needless_range_loop)]

mod html;
mod mesh;
#[cfg(feature = "rerun")]
mod rerun_sink;
mod tessellate;

use std::fmt;
use std::path::Path;

pub use html::Page;
pub use mesh::{load_mesh, Triangles};
#[cfg(feature = "rerun")]
pub use rerun_sink::RerunLive;
pub use spark::geometry::{Frame, Geometry, Pose, Shape, Visual};
use spark::nalgebra::{Matrix3, Vector3};

/// What went wrong, with what to do about it.
///
/// ```
/// use spark_viewer::{Recording, ViewerError};
/// use spark::geometry::Geometry;
/// const G: Geometry = Geometry { body_names: &["a"], body_parents: &[None], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
/// let mut rec = Recording::new("t", &G);
/// let e = rec.frame(0.0, &[]).unwrap_err();
/// assert!(matches!(e, ViewerError::PoseCount { .. }));
/// assert!(e.to_string().contains("body_poses"));
/// ```
#[derive(Debug)]
pub enum ViewerError {
    /// A frame's poses do not match the geometry's bodies.
    PoseCount {
        /// The number of bodies of the geometry.
        expected: usize,
        /// The number of poses given.
        got: usize,
    },
    /// A frame's time is before the previous frame's, or not finite.
    Time {
        /// The previous frame's time.
        previous: f64,
        /// The time given.
        got: f64,
    },
    /// A pose or a scalar is not finite.
    NotFinite {
        /// What was not finite.
        what: String,
    },
    /// Nothing to draw: no frame was recorded.
    Empty,
    /// Writing a file failed.
    Io {
        /// The file.
        path: String,
        /// The error.
        error: std::io::Error,
    },
    /// A mesh file could not be read.
    Mesh {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The Rerun SDK failed.
    Rerun(String),
}

impl fmt::Display for ViewerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ViewerError::PoseCount { expected, got } => write!(
                f,
                "a frame has {got} poses but the geometry has {expected} bodies: pass the same \
                 model's `body_poses(&state.q)` and `GEOMETRY`"
            ),
            ViewerError::Time { previous, got } => write!(
                f,
                "frame time {got} is not after the previous frame's {previous}: record frames in \
                 increasing time"
            ),
            ViewerError::NotFinite { what } => write!(
                f,
                "{what} is not finite: the simulation diverged, or the state was not initialized"
            ),
            ViewerError::Empty => write!(
                f,
                "the recording has no frame: call `Recording::frame` at least once before \
                 writing it"
            ),
            ViewerError::Io { path, error } => write!(
                f,
                "cannot write `{path}`: {error} (does its directory exist and is it writable?)"
            ),
            ViewerError::Mesh { path, reason } => write!(
                f,
                "cannot read the mesh `{path}`: {reason} (STL and OBJ files are read; convert \
                 other formats, or check the model's mesh path)"
            ),
            ViewerError::Rerun(e) => write!(f, "the Rerun SDK failed: {e}"),
        }
    }
}

impl std::error::Error for ViewerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ViewerError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// A pose as `body_poses` returns it: the body's origin and its rotation to the world.
pub type BodyPose = (Vector3<f64>, Matrix3<f64>);

/// A named time series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its name, such as `energy error` or `closure residual`.
    pub name: String,
    /// `(t, value)` pairs.
    pub points: Vec<(f64, f64)>,
}

/// A trajectory of a model's bodies, ready to be written as an HTML animation or a Rerun
/// recording.
///
/// ```
/// use spark_viewer::{Recording, Geometry, Pose, Shape, Visual};
/// use spark::nalgebra::{Matrix3, Vector3};
/// const BALL: [Visual; 1] = [Visual { body: Some(0), name: "ball", shape: Shape::Sphere { radius: 0.1 }, pose: Pose::IDENTITY, rgba: [0.9, 0.2, 0.2, 1.0] }];
/// const G: Geometry = Geometry { body_names: &["ball"], body_parents: &[None], visuals: &BALL, skeleton: &[], joints: &[], sites: &[] };
/// let mut rec = Recording::new("a ball", &G);
/// for k in 0..10 {
///     let t = 0.1 * k as f64;
///     rec.frame(t, &[(Vector3::new(t, 0.0, 0.0), Matrix3::identity())]).unwrap();
///     rec.scalar("x", t, t).unwrap();
/// }
/// assert_eq!(rec.len(), 10);
/// ```
#[derive(Clone, Debug)]
pub struct Recording {
    title: String,
    geometry: Geometry,
    visuals: Vec<Visual>,
    times: Vec<f64>,
    frames: Vec<Vec<Pose>>,
    series: Vec<Series>,
}

pub(crate) fn pose_of(p: &BodyPose) -> Pose {
    let (o, r) = p;
    Pose {
        position: [o[0], o[1], o[2]],
        rotation: std::array::from_fn(|i| std::array::from_fn(|j| r[(i, j)])),
    }
}

impl Recording {
    /// An empty recording of a model with this geometry, drawing its
    /// [`Geometry::drawing`] (the file's visuals, or the skeleton when it has none).
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let rec = Recording::new("empty", &G);
    /// assert!(rec.is_empty());
    /// ```
    pub fn new(title: &str, geometry: &Geometry) -> Self {
        Recording {
            title: title.to_string(),
            geometry: *geometry,
            visuals: geometry.drawing().to_vec(),
            times: Vec::new(),
            frames: Vec::new(),
            series: Vec::new(),
        }
    }

    /// Draws `visuals` instead (for instance the skeleton together with the file's visuals:
    /// `[G.visuals, G.skeleton].concat()`).
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let rec = Recording::new("skeleton", &G).with_visuals(G.skeleton);
    /// assert!(rec.visuals().is_empty());
    /// ```
    pub fn with_visuals(mut self, visuals: &[Visual]) -> Self {
        self.visuals = visuals.to_vec();
        self
    }

    /// The visuals drawn.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert!(Recording::new("t", &G).visuals().is_empty());
    /// ```
    pub fn visuals(&self) -> &[Visual] {
        &self.visuals
    }

    /// The model's geometry.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &["a"], body_parents: &[None], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert_eq!(Recording::new("t", &G).geometry().body_names, ["a"]);
    /// ```
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The title.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert_eq!(Recording::new("delta", &G).title(), "delta");
    /// ```
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Adds the bodies' poses at time `t` (the model's `body_poses(&state.q)`). Times must
    /// increase; the poses must be one per body of the geometry, and finite.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # use spark::nalgebra::{Matrix3, Vector3};
    /// # const G: Geometry = Geometry { body_names: &["a"], body_parents: &[None], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let mut rec = Recording::new("t", &G);
    /// rec.frame(0.0, &[(Vector3::zeros(), Matrix3::identity())]).unwrap();
    /// assert!(rec.frame(-1.0, &[(Vector3::zeros(), Matrix3::identity())]).is_err());
    /// ```
    pub fn frame(&mut self, t: f64, poses: &[BodyPose]) -> Result<(), ViewerError> {
        let expected = self.geometry.body_names.len();
        if poses.len() != expected {
            return Err(ViewerError::PoseCount {
                expected,
                got: poses.len(),
            });
        }
        let previous = self.times.last().copied().unwrap_or(f64::NEG_INFINITY);
        if !t.is_finite() || t <= previous {
            return Err(ViewerError::Time { previous, got: t });
        }
        let frame: Vec<Pose> = poses.iter().map(pose_of).collect();
        for (b, p) in frame.iter().enumerate() {
            let finite = p.position.iter().chain(p.rotation.iter().flatten());
            if !finite.into_iter().all(|x| x.is_finite()) {
                return Err(ViewerError::NotFinite {
                    what: format!(
                        "the pose of body `{}` at t = {t}",
                        self.geometry.body_names[b]
                    ),
                });
            }
        }
        self.times.push(t);
        self.frames.push(frame);
        Ok(())
    }

    /// Adds a point `(t, value)` to the time series `name` (made on first use).
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let mut rec = Recording::new("t", &G);
    /// rec.scalar("energy error", 0.0, 1e-12).unwrap();
    /// assert_eq!(rec.series()[0].points, [(0.0, 1e-12)]);
    /// ```
    pub fn scalar(&mut self, name: &str, t: f64, value: f64) -> Result<(), ViewerError> {
        if !t.is_finite() || !value.is_finite() {
            return Err(ViewerError::NotFinite {
                what: format!("the scalar `{name}` ({value}) at t = {t}"),
            });
        }
        match self.series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((t, value)),
            None => self.series.push(Series {
                name: name.to_string(),
                points: vec![(t, value)],
            }),
        }
        Ok(())
    }

    /// The number of frames.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert_eq!(Recording::new("t", &G).len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether no frame was recorded.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert!(Recording::new("t", &G).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The frames' times.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert!(Recording::new("t", &G).times().is_empty());
    /// ```
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// The poses of frame `k`, one per body.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry, Pose};
    /// # use spark::nalgebra::{Matrix3, Vector3};
    /// # const G: Geometry = Geometry { body_names: &["a"], body_parents: &[None], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// let mut rec = Recording::new("t", &G);
    /// rec.frame(0.0, &[(Vector3::new(1.0, 2.0, 3.0), Matrix3::identity())]).unwrap();
    /// assert_eq!(rec.poses(0)[0].position, [1.0, 2.0, 3.0]);
    /// ```
    pub fn poses(&self, k: usize) -> &[Pose] {
        &self.frames[k]
    }

    /// The time series.
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert!(Recording::new("t", &G).series().is_empty());
    /// ```
    pub fn series(&self) -> &[Series] {
        &self.series
    }

    /// The HTML animation as text, with the warnings met (mesh files missing or unreadable:
    /// those visuals are left out).
    ///
    /// ```
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// assert!(Recording::new("t", &G).html().is_err(), "no frame yet");
    /// ```
    pub fn html(&self) -> Result<Page, ViewerError> {
        html::page(self)
    }

    /// Writes the HTML animation to `path` (its directory is created), prints its warnings
    /// to stderr, and returns them.
    ///
    /// ```no_run
    /// # use spark_viewer::{Recording, Geometry};
    /// # const G: Geometry = Geometry { body_names: &[], body_parents: &[], visuals: &[], skeleton: &[], joints: &[], sites: &[] };
    /// # let rec = Recording::new("t", &G);
    /// let warnings = rec.write_html("examples/out/model.html")?;
    /// # Ok::<(), spark_viewer::ViewerError>(())
    /// ```
    pub fn write_html(&self, path: impl AsRef<Path>) -> Result<Vec<String>, ViewerError> {
        let page = self.html()?;
        let path = path.as_ref();
        let io = |error| ViewerError::Io {
            path: path.display().to_string(),
            error,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        std::fs::write(path, page.html).map_err(io)?;
        for w in &page.warnings {
            eprintln!("spark-viewer: warning: {w}");
        }
        Ok(page.warnings)
    }
}
