//! What a mechanism looks like, as plain data: the shapes drawn on each body, the frames of its
//! joints and sites. `mechanics!` emits them as constants of every model made of bodies (a
//! `bodies:`/`joints:` mechanism, a URDF or an MJCF file): `VISUALS`, `SKELETON`,
//! `JOINT_FRAMES`, `SITES`, `BODY_PARENTS` and all of them together as `GEOMETRY`. A viewer (the
//! `spark-viewer` crate) places them with the model's `body_poses(q)`.
//!
//! Everything here is `Copy` data with `&'static` slices, so the constants live in flash on an
//! embedded target and cost nothing when unused.
//!
//! ```
//! use spark_runtime::geometry::{Pose, Shape, Visual};
//! const ROD: Visual = Visual {
//!     body: Some(0),
//!     name: "rod",
//!     shape: Shape::Capsule { radius: 0.02, half_length: 0.5 },
//!     pose: Pose::translation([0.0, 0.0, -0.5]),
//!     rgba: [0.8, 0.3, 0.2, 1.0],
//! };
//! assert_eq!(ROD.pose.apply([0.0, 0.0, 0.5]), [0.0, 0.0, 0.0]);
//! ```

/// A rigid placement: a point maps to `rotation · p + position`. The rotation is row-major and
/// maps the placed frame's coordinates to the parent frame's (its columns are the placed
/// frame's axes), the convention of `body_poses`.
///
/// ```
/// use spark_runtime::geometry::Pose;
/// let turn = Pose { position: [1.0, 0.0, 0.0], rotation: [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] };
/// assert_eq!(turn.apply([1.0, 0.0, 0.0]), [1.0, 1.0, 0.0]);
/// assert_eq!(Pose::IDENTITY.then(&turn), turn);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// The placed frame's origin in the parent frame.
    pub position: [f64; 3],
    /// The rotation from the placed frame to the parent frame, row-major.
    pub rotation: [[f64; 3]; 3],
}

impl Pose {
    /// No displacement.
    pub const IDENTITY: Pose = Pose {
        position: [0.0; 3],
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    };

    /// A translation by `position`, no rotation.
    ///
    /// ```
    /// use spark_runtime::geometry::Pose;
    /// assert_eq!(Pose::translation([0.0, 2.0, 0.0]).apply([1.0, 0.0, 0.0]), [1.0, 2.0, 0.0]);
    /// ```
    pub const fn translation(position: [f64; 3]) -> Pose {
        Pose {
            position,
            rotation: Pose::IDENTITY.rotation,
        }
    }

    /// The point `p` of the placed frame in the parent frame.
    ///
    /// ```
    /// use spark_runtime::geometry::Pose;
    /// assert_eq!(Pose::IDENTITY.apply([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0]);
    /// ```
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let r = &self.rotation;
        core::array::from_fn(|i| {
            r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + self.position[i]
        })
    }

    /// `inner` placed in this pose's frame: the pose of a visual (given in its body's frame)
    /// in the world, when `self` is the body's world pose.
    ///
    /// ```
    /// use spark_runtime::geometry::Pose;
    /// let a = Pose::translation([1.0, 0.0, 0.0]);
    /// assert_eq!(a.then(&a).position, [2.0, 0.0, 0.0]);
    /// ```
    pub fn then(&self, inner: &Pose) -> Pose {
        let (a, b) = (&self.rotation, &inner.rotation);
        let rotation = core::array::from_fn(|i| {
            core::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum())
        });
        Pose {
            position: self.apply(inner.position),
            rotation,
        }
    }
}

/// A shape in its own frame (sizes in metres). Capsules and cylinders lie along their frame's
/// z axis, centred on the origin, as MuJoCo's do.
///
/// ```
/// use spark_runtime::geometry::Shape;
/// let s = Shape::Box { half_extents: [0.1, 0.2, 0.3] };
/// assert_eq!(s.half_extents(), Some([0.1, 0.2, 0.3]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A ball.
    Sphere {
        /// Its radius.
        radius: f64,
    },
    /// A box; `half_extents` are MJCF's `size` (half the box's sides).
    Box {
        /// Half the sides along x, y, z.
        half_extents: [f64; 3],
    },
    /// A cylinder with hemispherical caps, along z.
    Capsule {
        /// The radius.
        radius: f64,
        /// Half the length of the cylindrical part.
        half_length: f64,
    },
    /// A cylinder along z.
    Cylinder {
        /// The radius.
        radius: f64,
        /// Half its length.
        half_length: f64,
    },
    /// An ellipsoid.
    Ellipsoid {
        /// The semi-axes along x, y, z.
        radii: [f64; 3],
    },
    /// The plane z = 0 of the frame; zero half extents mean an unbounded plane.
    Plane {
        /// Half the plane's size along x and y (0: unbounded).
        half_extents: [f64; 2],
    },
    /// A triangle mesh read from a file (STL or OBJ) at run time, each vertex scaled by
    /// `scale` component-wise.
    Mesh {
        /// The file as the macro resolved it (absolute when it existed at compile time).
        path: &'static str,
        /// The per-axis scale of MJCF's `<mesh scale>` or URDF's `<mesh scale>`.
        scale: [f64; 3],
    },
}

impl Shape {
    /// Half the sides of the shape's bounding box in its frame (`None` for unbounded planes and
    /// meshes, whose size is in their file).
    ///
    /// ```
    /// use spark_runtime::geometry::Shape;
    /// assert_eq!(Shape::Capsule { radius: 1.0, half_length: 2.0 }.half_extents(), Some([1.0, 1.0, 3.0]));
    /// ```
    pub fn half_extents(&self) -> Option<[f64; 3]> {
        match *self {
            Shape::Sphere { radius } => Some([radius; 3]),
            Shape::Box { half_extents } => Some(half_extents),
            Shape::Capsule {
                radius,
                half_length,
            } => Some([radius, radius, radius + half_length]),
            Shape::Cylinder {
                radius,
                half_length,
            } => Some([radius, radius, half_length]),
            Shape::Ellipsoid { radii } => Some(radii),
            Shape::Plane {
                half_extents: [x, y],
            } if x > 0.0 && y > 0.0 => Some([x, y, 0.0]),
            Shape::Plane { .. } | Shape::Mesh { .. } => None,
        }
    }
}

/// One shape drawn on a body (or on the world), with its colour.
///
/// ```
/// use spark_runtime::geometry::{Pose, Shape, Visual};
/// let v = Visual {
///     body: None,
///     name: "floor",
///     shape: Shape::Plane { half_extents: [1.0, 1.0] },
///     pose: Pose::IDENTITY,
///     rgba: [0.5, 0.5, 0.5, 1.0],
/// };
/// assert!(v.body.is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visual {
    /// The body it moves with: an index of the model's `BODY_NAMES` (`None`: the world).
    pub body: Option<usize>,
    /// Its name in the file (MJCF geom, URDF visual), or what the default drawing draws
    /// (`"link"`, `"com"`, `"axis"`, `"mass"`); may be empty.
    pub name: &'static str,
    /// The shape.
    pub shape: Shape,
    /// Where the shape's frame is in the body's frame.
    pub pose: Pose,
    /// Red, green, blue and opacity, each in 0..=1.
    pub rgba: [f32; 4],
}

/// A named frame fixed in a body: a joint (its origin the joint's anchor, its z axis the joint's
/// axis for a hinge or slide) or a site.
///
/// ```
/// use spark_runtime::geometry::{Frame, Pose};
/// let f = Frame { body: Some(1), name: "elbow", pose: Pose::IDENTITY };
/// assert_eq!(f.name, "elbow");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// The body it is fixed in (`None`: the world).
    pub body: Option<usize>,
    /// The joint's or site's name.
    pub name: &'static str,
    /// Where it is in the body's frame.
    pub pose: Pose,
}

/// All of a model's geometry: what `mechanics!` emits as `Model::GEOMETRY`.
///
/// ```
/// use spark_runtime::geometry::Geometry;
/// const EMPTY: Geometry = Geometry {
///     body_names: &[],
///     body_parents: &[],
///     visuals: &[],
///     skeleton: &[],
///     joints: &[],
///     sites: &[],
/// };
/// assert!(EMPTY.drawing().is_empty());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    /// The bodies' names, in the order of `body_poses`.
    pub body_names: &'static [&'static str],
    /// Each body's parent (`None`: the world), parents before children.
    pub body_parents: &'static [Option<usize>],
    /// The shapes the model's file draws (MJCF geoms, URDF `<visual>`s), or for a `bodies:`
    /// mechanism its default drawing.
    pub visuals: &'static [Visual],
    /// The default drawing, for every model: a capsule from each body's origin to its joints'
    /// and children's origins, a sphere at each centre of mass (larger for point masses), and
    /// each hinge's or slide's axis as a thin cylinder.
    pub skeleton: &'static [Visual],
    /// Every joint's frame, in the order of `JOINT_LAYOUT` (welds have none).
    pub joints: &'static [Frame],
    /// MJCF sites (empty for other models).
    pub sites: &'static [Frame],
}

impl Geometry {
    /// The visuals when there are any, else the skeleton: what a viewer draws by default.
    ///
    /// ```
    /// use spark_runtime::geometry::{Geometry, Pose, Shape, Visual};
    /// const DOT: [Visual; 1] = [Visual {
    ///     body: Some(0),
    ///     name: "com",
    ///     shape: Shape::Sphere { radius: 0.1 },
    ///     pose: Pose::IDENTITY,
    ///     rgba: [1.0; 4],
    /// }];
    /// let g = Geometry { body_names: &["b"], body_parents: &[None], visuals: &[], skeleton: &DOT, joints: &[], sites: &[] };
    /// assert_eq!(g.drawing().len(), 1);
    /// ```
    pub fn drawing(&self) -> &'static [Visual] {
        if self.visuals.is_empty() {
            self.skeleton
        } else {
            self.visuals
        }
    }
}
