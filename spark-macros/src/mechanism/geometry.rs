//! What a mechanism looks like, as constants of the model (`spark::geometry`): the visuals of
//! its file (MJCF geoms, URDF `<visual>`s), a default drawing of every mechanism (its
//! skeleton), its joints' frames and its sites. Nothing here changes the dynamics; a file's
//! geometry is read after the mechanism, from the same document, and a visual that cannot be
//! read is left out rather than refused (the drawing is not the model).
//!
//! Which MJCF geoms are visuals: those of `group` 0, 1 or 2, the groups MuJoCo's viewer shows
//! by default (the Menagerie puts its visual meshes, class `visual`, in group 2 and its
//! collision geoms in group 3). Colour: the geom's `rgba` when given (after default classes),
//! else its `material`'s `rgba`, else MuJoCo's grey. Mesh geoms name the `<mesh>` asset's file
//! (under `meshdir`) and `scale`; the mesh's `refpos`/`refquat` are ignored. `hfield` and `sdf`
//! geoms are left out. URDF: every `<visual>` with its `<origin>`, a `<box>`, `<cylinder>`,
//! `<sphere>` or `<mesh filename scale>` (`package://name/…` and `file://` paths resolved
//! next to the URDF when the file is there), coloured by its `<material>` (inline `<color>`,
//! or a top-level material of that name).

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::mjcf_doc::{self, Node, Source};
use super::tree::{self, JointKind, Mechanism, M3, V3};
use super::xml::{numbers, Errors};

/// A shape, as `spark::geometry::Shape`.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Radius.
    Sphere(f64),
    /// Half extents.
    Box(V3),
    /// Radius, half length.
    Capsule(f64, f64),
    /// Radius, half length.
    Cylinder(f64, f64),
    /// Radii.
    Ellipsoid(V3),
    /// Half extents in x and y (0: unbounded).
    Plane([f64; 2]),
    /// The file and its scale.
    Mesh(String, V3),
}

/// One visual, as `spark::geometry::Visual`.
#[derive(Clone, Debug, PartialEq)]
pub struct Visual {
    /// The body (`None`: the world).
    pub body: Option<usize>,
    /// Its name.
    pub name: String,
    /// The shape.
    pub shape: Shape,
    /// Its frame in the body's frame.
    pub pos: V3,
    /// See [`Visual::pos`].
    pub rot: M3,
    /// Colour.
    pub rgba: [f32; 4],
}

/// A frame fixed in a body, as `spark::geometry::Frame`.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The body (`None`: the world).
    pub body: Option<usize>,
    /// Its name.
    pub name: String,
    /// Its origin in the body's frame.
    pub pos: V3,
    /// Its rotation.
    pub rot: M3,
}

/// MuJoCo's default geom colour.
const GREY: [f32; 4] = [0.5, 0.5, 0.5, 1.0];
const LINK: [f32; 4] = [0.55, 0.6, 0.7, 1.0];
const COM: [f32; 4] = [0.95, 0.6, 0.15, 1.0];
const HINGE: [f32; 4] = [0.85, 0.2, 0.2, 1.0];
const SLIDE: [f32; 4] = [0.2, 0.7, 0.3, 1.0];

/// A capsule from `a` to `b` (`None` when they coincide).
fn segment(body: usize, name: &str, a: V3, b: V3, radius: f64, rgba: [f32; 4]) -> Option<Visual> {
    let d = tree::sub(b, a);
    let l = tree::norm(d);
    (l > 1e-9).then(|| Visual {
        body: Some(body),
        name: name.into(),
        shape: Shape::Capsule(radius, 0.5 * l),
        pos: tree::scale(0.5, tree::add(a, b)),
        rot: tree::z_to(tree::scale(1.0 / l, d)),
        rgba,
    })
}

/// A length that sets the skeleton's thickness: the largest offset in the mechanism (1 when
/// every body sits at its parent's origin).
fn size(mech: &Mechanism) -> f64 {
    let mut s = 0.0f64;
    for b in &mech.bodies {
        s = s.max(tree::norm(b.pos)).max(tree::norm(b.com));
        for j in &b.joints {
            s = s.max(tree::norm(j.anchor));
        }
    }
    if s > 0.0 {
        s
    } else {
        1.0
    }
}

/// The default drawing: from each body's origin a capsule to each of its joints' anchors, to
/// each child's joint anchor (or origin), to the points its `Connect` closures hold and to its
/// centre of mass when it has no child; a
/// sphere at each centre of mass (larger for a point mass, a body without rotational
/// inertia); each hinge's and slide's axis as a thin cylinder through its anchor.
pub fn skeleton(mech: &Mechanism) -> Vec<Visual> {
    let s = size(mech);
    let (r_link, r_com, r_axis) = (0.02 * s, 0.045 * s, 0.008 * s);
    let mut out = Vec::new();
    for (b, body) in mech.bodies.iter().enumerate() {
        let mut ends: Vec<V3> = body.joints.iter().map(|j| j.anchor).collect();
        let mut has_child = false;
        for c in mech.bodies.iter().filter(|c| c.parent == Some(b)) {
            has_child = true;
            let at = c.joints.first().map_or([0.0; 3], |j| j.anchor);
            ends.push(tree::add(c.pos, tree::mul_v(&c.rot, at)));
        }
        if !has_child {
            ends.push(body.com);
        }
        // The points loop closures hold (`Connect`), so that a closed loop is drawn closed.
        for c in &mech.closures {
            if let tree::ClosureKind::Connect { anchor1, anchor2 } = &c.kind {
                if c.body1 == Some(b) {
                    ends.push(*anchor1);
                }
                if let (true, Some(a2)) = (c.body2 == Some(b), anchor2) {
                    ends.push(*a2);
                }
            }
        }
        for e in ends {
            out.extend(segment(b, "link", [0.0; 3], e, r_link, LINK));
        }
        if body.mass > 0.0 {
            let point = body.inertia.iter().flatten().all(|x| *x == 0.0);
            out.push(Visual {
                body: Some(b),
                name: if point { "mass" } else { "com" }.into(),
                shape: Shape::Sphere(if point { 1.6 * r_com } else { r_com }),
                pos: body.com,
                rot: tree::IDENTITY,
                rgba: COM,
            });
        }
        for j in &body.joints {
            let rgba = match j.kind {
                JointKind::Hinge => HINGE,
                JointKind::Slide => SLIDE,
                _ => continue,
            };
            out.push(Visual {
                body: Some(b),
                name: "axis".into(),
                shape: Shape::Cylinder(r_axis, 0.12 * s),
                pos: j.anchor,
                rot: tree::z_to(j.axis),
                rgba,
            });
        }
    }
    out
}

/// Every joint's frame: at its anchor, its z axis the joint's axis (hinge, slide).
pub fn joint_frames(mech: &Mechanism) -> Vec<Frame> {
    let mut out = Vec::new();
    for (b, body) in mech.bodies.iter().enumerate() {
        for j in &body.joints {
            let rot = match j.kind {
                JointKind::Hinge | JointKind::Slide => tree::z_to(j.axis),
                _ => tree::IDENTITY,
            };
            out.push(Frame {
                body: Some(b),
                name: j.name.clone(),
                pos: j.anchor,
                rot,
            });
        }
    }
    out
}

/// `n` numbers of an attribute, or `None` (also when malformed: the reader reported it).
fn nums(node: Node, name: &str, n: usize) -> Option<Vec<f64>> {
    numbers(node, name, n, &mut Errors::default())
}

fn v3(node: Node, name: &str, default: V3) -> V3 {
    nums(node, name, 3).map_or(default, |v| [v[0], v[1], v[2]])
}

fn rgba(v: Option<Vec<f64>>) -> Option<[f32; 4]> {
    v.map(|v| [v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32])
}

/// An MJCF file's visuals and sites, bodies indexed as the reader orders them (depth first in
/// file order). Empty when the document cannot be read (the reader has reported why).
pub fn mjcf(path: &Path, text: &str) -> (Vec<Visual>, Vec<Frame>) {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let src = Source {
        text,
        name: String::new(),
        dir: dir.clone(),
    };
    let mut errors = Errors::default();
    let Some(doc) = mjcf_doc::load(&src, &mut errors) else {
        return (Vec::new(), Vec::new());
    };
    let angles = mjcf_doc::angle_settings(&doc, &mut errors);
    let root = doc.root();
    let (mut assetdir, mut meshdir) = (None, None);
    for c in root.children().filter(|c| c.has_tag_name("compiler")) {
        assetdir = c.attribute("assetdir").map(PathBuf::from).or(assetdir);
        meshdir = c.attribute("meshdir").map(PathBuf::from).or(meshdir);
    }
    let meshdir = match (meshdir, assetdir) {
        (Some(m), _) => dir.join(m),
        (None, Some(a)) => dir.join(a),
        (None, None) => dir.clone(),
    };
    let mut meshes = Vec::new();
    let mut materials = Vec::new();
    for a in root.children().filter(|c| c.has_tag_name("asset")) {
        for m in a.children() {
            match m.tag() {
                "mesh" => {
                    let Some(file) = m.attribute("file") else {
                        continue;
                    };
                    let name = m.attribute("name").map_or_else(
                        || {
                            Path::new(file)
                                .file_stem()
                                .map(|s| s.to_string_lossy().into_owned())
                                .unwrap_or_default()
                        },
                        str::to_string,
                    );
                    let p = meshdir.join(file);
                    let p = p.canonicalize().unwrap_or(p);
                    meshes.push((
                        name,
                        p.to_string_lossy().into_owned(),
                        v3(m, "scale", [1.0; 3]),
                    ));
                }
                "material" => {
                    if let (Some(n), Some(c)) = (m.attribute("name"), rgba(nums(m, "rgba", 4))) {
                        materials.push((n.to_string(), c));
                    }
                }
                _ => {}
            }
        }
    }
    let mut visuals = Vec::new();
    let mut sites = Vec::new();
    let mut read = |n: Node, body: Option<usize>| {
        for c in n.children() {
            let (pos, rot) = (v3(c, "pos", [0.0; 3]), {
                mjcf_doc::orientation(c, &angles, &mut Errors::default())
            });
            match c.tag() {
                "site" => sites.push(Frame {
                    body,
                    name: c.attribute("name").unwrap_or("").into(),
                    pos,
                    rot,
                }),
                "geom" => {
                    let group = c
                        .attribute("group")
                        .and_then(|g| g.trim().parse::<i64>().ok())
                        .unwrap_or(0);
                    if !(0..=2).contains(&group) {
                        continue;
                    }
                    if let Some(v) = geom(c, body, pos, rot, &meshes, &materials) {
                        visuals.push(v);
                    }
                }
                _ => {}
            }
        }
    };
    let mut count = 0usize;
    let mut stack: Vec<Node> = Vec::new();
    for w in root.children().filter(|c| c.has_tag_name("worldbody")) {
        read(w, None);
        stack.extend(
            w.children()
                .filter(|c| c.has_tag_name("body"))
                .collect::<Vec<_>>()
                .into_iter()
                .rev(),
        );
        while let Some(n) = stack.pop() {
            let b = count;
            count += 1;
            read(n, Some(b));
            let kids: Vec<Node> = n.children().filter(|c| c.has_tag_name("body")).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    (visuals, sites)
}

/// One MJCF geom as a visual.
fn geom(
    g: Node,
    body: Option<usize>,
    mut pos: V3,
    mut rot: M3,
    meshes: &[(String, String, V3)],
    materials: &[(String, [f32; 4])],
) -> Option<Visual> {
    let ty = g.attribute("type").unwrap_or("sphere");
    let size = nums(g, "size", 0).unwrap_or_default();
    let at = |i: usize| size.get(i).copied().unwrap_or(0.0);
    let mut half = at(1);
    if let Some(ft) = nums(g, "fromto", 6) {
        if matches!(ty, "capsule" | "cylinder" | "box" | "ellipsoid") {
            let (a, b) = ([ft[0], ft[1], ft[2]], [ft[3], ft[4], ft[5]]);
            let d = tree::sub(b, a);
            let l = tree::norm(d);
            if l > 1e-12 {
                pos = tree::scale(0.5, tree::add(a, b));
                rot = tree::z_to(tree::scale(1.0 / l, d));
                half = 0.5 * l;
            }
        }
    }
    let shape = match ty {
        "sphere" => Shape::Sphere(at(0)),
        "capsule" => Shape::Capsule(at(0), half),
        "cylinder" => Shape::Cylinder(at(0), half),
        "box" if nums(g, "fromto", 6).is_some() => Shape::Box([at(0), at(1), half]),
        "box" => Shape::Box([at(0), at(1), at(2)]),
        "ellipsoid" if nums(g, "fromto", 6).is_some() => Shape::Ellipsoid([at(0), at(1), half]),
        "ellipsoid" => Shape::Ellipsoid([at(0), at(1), at(2)]),
        "plane" => Shape::Plane([at(0), at(1)]),
        "mesh" => {
            let name = g.attribute("mesh")?;
            let (_, file, scale) = meshes.iter().find(|m| m.0 == name)?;
            Shape::Mesh(file.clone(), *scale)
        }
        _ => return None,
    };
    let own = rgba(nums(g, "rgba", 4));
    let material = g
        .attribute("material")
        .and_then(|m| materials.iter().find(|x| x.0 == m))
        .map(|x| x.1);
    let rgba = match (own, material) {
        (Some(c), Some(m)) if c == GREY => m,
        (Some(c), _) => c,
        (None, Some(m)) => m,
        (None, None) => GREY,
    };
    Some(Visual {
        body,
        name: g.attribute("name").unwrap_or("").into(),
        shape,
        pos,
        rot,
        rgba,
    })
}

/// A URDF mesh's file: `package://name/rest` and `file://` resolved next to the URDF (its
/// directory and those above it) when the file is there, else the name as written.
fn urdf_mesh_path(dir: &Path, name: &str) -> String {
    let rel = name
        .strip_prefix("file://")
        .or_else(|| name.strip_prefix("package://"));
    let mut tries: Vec<PathBuf> = Vec::new();
    match rel {
        Some(r) if name.starts_with("file://") => tries.push(PathBuf::from(r)),
        Some(r) => {
            let rest = r.split_once('/').map_or(r, |x| x.1);
            for d in dir.ancestors().take(4) {
                tries.push(d.join(r));
                tries.push(d.join(rest));
            }
        }
        None => tries.push(dir.join(name)),
    }
    for t in &tries {
        if let Ok(p) = t.canonicalize() {
            return p.to_string_lossy().into_owned();
        }
    }
    tries
        .first()
        .map_or_else(|| name.to_string(), |p| p.to_string_lossy().into_owned())
}

/// A URDF's visuals, each on the body of its link (by name).
pub fn urdf(path: &Path, text: &str, mech: &Mechanism) -> Vec<Visual> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Vec::new();
    };
    let robot = doc.root_element();
    let color = |m: roxmltree::Node| {
        m.children()
            .find(|c| c.has_tag_name("color"))
            .and_then(|c| rgba(numbers(c, "rgba", 4, &mut Errors::default())))
    };
    let named: Vec<(String, [f32; 4])> = robot
        .children()
        .filter(|c| c.has_tag_name("material"))
        .filter_map(|m| Some((m.attribute("name")?.to_string(), color(m)?)))
        .collect();
    let mut out = Vec::new();
    for link in robot.children().filter(|c| c.has_tag_name("link")) {
        let Some(b) = link
            .attribute("name")
            .and_then(|n| mech.bodies.iter().position(|b| b.name == n))
        else {
            continue;
        };
        for v in link.children().filter(|c| c.has_tag_name("visual")) {
            let mut e = Errors::default();
            let (pos, rot) = match v.children().find(|c| c.has_tag_name("origin")) {
                Some(o) => (
                    super::xml::vec3(o, "xyz", [0.0; 3], &mut e),
                    tree::rpy(super::xml::vec3(o, "rpy", [0.0; 3], &mut e)),
                ),
                None => ([0.0; 3], tree::IDENTITY),
            };
            let Some(g) = v
                .children()
                .find(|c| c.has_tag_name("geometry"))
                .and_then(|g| g.children().find(|c| c.is_element()))
            else {
                continue;
            };
            let num = |k: &str| super::xml::number(g, k, 0.0, &mut Errors::default());
            let shape = match g.tag_name().name() {
                "box" => {
                    let s = super::xml::vec3(g, "size", [0.0; 3], &mut e);
                    Shape::Box(tree::scale(0.5, s))
                }
                "cylinder" => Shape::Cylinder(num("radius"), 0.5 * num("length")),
                "sphere" => Shape::Sphere(num("radius")),
                "mesh" => {
                    let Some(f) = g.attribute("filename") else {
                        continue;
                    };
                    Shape::Mesh(
                        urdf_mesh_path(&dir, f),
                        super::xml::vec3(g, "scale", [1.0; 3], &mut e),
                    )
                }
                _ => continue,
            };
            let rgba = v
                .children()
                .find(|c| c.has_tag_name("material"))
                .and_then(|m| {
                    color(m).or_else(|| {
                        let n = m.attribute("name")?;
                        named.iter().find(|x| x.0 == n).map(|x| x.1)
                    })
                })
                .unwrap_or(GREY);
            out.push(Visual {
                body: Some(b),
                name: v.attribute("name").unwrap_or("").into(),
                shape,
                pos,
                rot,
                rgba,
            });
        }
    }
    out
}

fn pose_tokens(pos: &V3, rot: &M3) -> TokenStream {
    let g = quote!(::spark::__private::runtime::geometry);
    let rows = rot.iter().map(|r| quote!([#(#r),*]));
    quote!(#g::Pose { position: [#(#pos),*], rotation: [#(#rows),*] })
}

fn body_tokens(b: Option<usize>) -> TokenStream {
    match b {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

fn visual_tokens(v: &Visual) -> TokenStream {
    let g = quote!(::spark::__private::runtime::geometry);
    let shape = match &v.shape {
        Shape::Sphere(r) => quote!(#g::Shape::Sphere { radius: #r }),
        Shape::Box(h) => quote!(#g::Shape::Box { half_extents: [#(#h),*] }),
        Shape::Capsule(r, h) => quote!(#g::Shape::Capsule { radius: #r, half_length: #h }),
        Shape::Cylinder(r, h) => quote!(#g::Shape::Cylinder { radius: #r, half_length: #h }),
        Shape::Ellipsoid(r) => quote!(#g::Shape::Ellipsoid { radii: [#(#r),*] }),
        Shape::Plane(h) => quote!(#g::Shape::Plane { half_extents: [#(#h),*] }),
        Shape::Mesh(p, s) => quote!(#g::Shape::Mesh { path: #p, scale: [#(#s),*] }),
    };
    let (body, name, pose, rgba) = (
        body_tokens(v.body),
        &v.name,
        pose_tokens(&v.pos, &v.rot),
        &v.rgba,
    );
    quote!(#g::Visual { body: #body, name: #name, shape: #shape, pose: #pose, rgba: [#(#rgba),*] })
}

fn frame_tokens(f: &Frame) -> TokenStream {
    let g = quote!(::spark::__private::runtime::geometry);
    let (body, name, pose) = (body_tokens(f.body), &f.name, pose_tokens(&f.pos, &f.rot));
    quote!(#g::Frame { body: #body, name: #name, pose: #pose })
}

/// The geometry constants of a model: `VISUALS` (the file's, or the skeleton when `visuals`
/// is `None`), `SKELETON`, `JOINT_FRAMES`, `SITES`, `BODY_PARENTS` and `GEOMETRY`.
pub fn items(
    name: &Ident,
    mech: &Mechanism,
    visuals: Option<&[Visual]>,
    sites: &[Frame],
) -> TokenStream {
    let g = quote!(::spark::__private::runtime::geometry);
    let skeleton = skeleton(mech);
    let skel: Vec<_> = skeleton.iter().map(visual_tokens).collect();
    let vis: Vec<_> = visuals
        .unwrap_or(&skeleton)
        .iter()
        .map(visual_tokens)
        .collect();
    let joints: Vec<_> = joint_frames(mech).iter().map(frame_tokens).collect();
    let sites: Vec<_> = sites.iter().map(frame_tokens).collect();
    let parents: Vec<_> = mech.bodies.iter().map(|b| body_tokens(b.parent)).collect();
    let names: Vec<&str> = mech.bodies.iter().map(|b| b.name.as_str()).collect();
    let what = if visuals.is_some() {
        "The shapes the model's file draws (MJCF geoms of groups 0 to 2, URDF `<visual>`s), \
         each on its body (an index of `BODY_NAMES`) with its pose in the body's frame."
    } else {
        "The mechanism's default drawing (the same as `SKELETON`): a `bodies:` mechanism has \
         no shapes of its own."
    };
    quote! {
        #[allow(dead_code, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #name {
            #[doc = #what]
            pub const VISUALS: &'static [#g::Visual] = &[#(#vis),*];
            /// The default drawing: capsules from each body's origin to its joints and
            /// children, a sphere at each centre of mass, each hinge's and slide's axis.
            pub const SKELETON: &'static [#g::Visual] = &[#(#skel),*];
            /// Every joint's frame (its origin the joint's anchor, its z axis the hinge's or
            /// slide's axis), in the order of `JOINT_LAYOUT`.
            pub const JOINT_FRAMES: &'static [#g::Frame] = &[#(#joints),*];
            /// The file's sites (MJCF `<site>`), each in its body's frame.
            pub const SITES: &'static [#g::Frame] = &[#(#sites),*];
            /// Each body's parent (`None`: the world), in the order of `BODY_NAMES`.
            pub const BODY_PARENTS: &'static [::core::option::Option<usize>] = &[#(#parents),*];
            /// All of the above with the bodies' names: what a viewer needs besides
            /// `body_poses`.
            pub const GEOMETRY: #g::Geometry = #g::Geometry {
                body_names: &[#(#names),*],
                body_parents: Self::BODY_PARENTS,
                visuals: Self::VISUALS,
                skeleton: Self::SKELETON,
                joints: Self::JOINT_FRAMES,
                sites: Self::SITES,
            };
        }
    }
}

/// The geometry constants of a model read from a file.
pub fn file_items(
    format: super::Format,
    path: &Path,
    text: &str,
    mech: &Mechanism,
    name: &Ident,
) -> TokenStream {
    let (visuals, sites) = match format {
        super::Format::Mjcf => mjcf(path, text),
        super::Format::Urdf => (urdf(path, text, mech), Vec::new()),
    };
    items(name, mech, Some(&visuals), &sites)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MJCF: &str = r#"<mujoco>
  <compiler angle="radian" meshdir="meshes"/>
  <default>
    <default class="visual"><geom group="2" contype="0" conaffinity="0" rgba="0.1 0.2 0.3 1"/></default>
    <default class="collision"><geom group="3"/></default>
    <mesh scale="0.001 0.001 0.001"/>
  </default>
  <asset>
    <material name="red" rgba="1 0 0 1"/>
    <mesh file="link.stl"/>
    <mesh name="big" file="big.obj" scale="2 2 2"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 2 0.1"/>
    <site name="target" pos="0 0 1"/>
    <body name="a" pos="0 0 1">
      <joint type="hinge" axis="0 1 0"/>
      <geom name="rod" type="capsule" size="0.02" fromto="0 0 0 0 0 -0.4" material="red"/>
      <geom name="hull" type="box" size="0.1 0.1 0.1" class="collision"/>
      <body name="b">
        <joint type="slide" axis="1 0 0"/>
        <geom class="visual" type="mesh" mesh="link" pos="0.1 0 0"/>
        <site name="tip" pos="0.2 0 0"/>
      </body>
    </body>
    <body name="c"><geom type="mesh" mesh="big" group="1"/><joint type="hinge"/></body>
  </worldbody>
</mujoco>"#;

    #[test]
    fn mjcf_geoms_with_classes_groups_materials_and_meshes() {
        let path = Path::new("/nonexistent/model.xml");
        let (v, sites) = mjcf(path, MJCF);
        let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
        // The collision box (group 3) is left out.
        assert_eq!(names, ["floor", "rod", "", ""]);
        assert_eq!(v[0].body, None);
        assert_eq!(v[0].shape, Shape::Plane([1.0, 2.0]));
        assert_eq!(v[0].rgba, GREY);
        let rod = &v[1];
        assert_eq!(rod.body, Some(0));
        assert_eq!(rod.shape, Shape::Capsule(0.02, 0.2));
        assert_eq!(rod.pos, [0.0, 0.0, -0.2]);
        assert_eq!(rod.rgba, [1.0, 0.0, 0.0, 1.0], "the material's colour");
        // The mesh's class default scale, its file under meshdir, the class's colour.
        assert_eq!(v[2].body, Some(1));
        assert_eq!(
            v[2].shape,
            Shape::Mesh("/nonexistent/meshes/link.stl".into(), [0.001; 3])
        );
        assert_eq!(v[2].pos, [0.1, 0.0, 0.0]);
        assert_eq!(v[2].rgba, [0.1, 0.2, 0.3, 1.0]);
        assert_eq!(v[3].body, Some(2));
        assert_eq!(
            v[3].shape,
            Shape::Mesh("/nonexistent/meshes/big.obj".into(), [2.0; 3])
        );
        let s: Vec<(&str, Option<usize>, V3)> = sites
            .iter()
            .map(|s| (s.name.as_str(), s.body, s.pos))
            .collect();
        assert_eq!(
            s,
            [
                ("target", None, [0.0, 0.0, 1.0]),
                ("tip", Some(1), [0.2, 0.0, 0.0])
            ]
        );
    }

    const URDF: &str = r#"<robot name="r">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <visual name="plate"><origin xyz="0 0 0.1" rpy="0 0 0"/><geometry><box size="0.2 0.4 0.02"/></geometry><material name="blue"/></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><cylinder radius="0.03" length="0.5"/></geometry><material name="m"><color rgba="1 1 0 0.5"/></material></visual>
    <visual><geometry><mesh filename="package://pkg/meshes/arm.dae" scale="2 2 2"/></geometry></visual>
    <visual><geometry><sphere radius="0.05"/></geometry></visual>
  </link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"#;

    #[test]
    fn urdf_visuals_with_materials_and_meshes() {
        let mech = super::super::urdf::read(URDF).unwrap();
        let v = urdf(Path::new("/nonexistent/r.urdf"), URDF, &mech);
        assert_eq!(v.len(), 4, "the collision box is not a visual");
        assert_eq!(v[0].name, "plate");
        assert_eq!(v[0].body, Some(0));
        assert_eq!(v[0].shape, Shape::Box([0.1, 0.2, 0.01]));
        assert_eq!(v[0].pos, [0.0, 0.0, 0.1]);
        assert_eq!(v[0].rgba, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(v[1].shape, Shape::Cylinder(0.03, 0.25));
        assert_eq!(v[1].rgba, [1.0, 1.0, 0.0, 0.5]);
        let Shape::Mesh(p, s) = &v[2].shape else {
            panic!("a mesh: {:?}", v[2].shape)
        };
        assert!(p.ends_with("meshes/arm.dae"), "{p}");
        assert_eq!(*s, [2.0; 3]);
        assert_eq!(v[3].shape, Shape::Sphere(0.05));
        assert_eq!(v[3].rgba, GREY);
    }

    #[test]
    fn skeleton_links_joints_children_and_masses() {
        let text = MJCF
            .replace(
                r#"<geom class="visual" type="mesh" mesh="link" pos="0.1 0 0"/>"#,
                "",
            )
            .replace(
                r#"<geom type="mesh" mesh="big" group="1"/>"#,
                r#"<geom size="0.1"/>"#,
            );
        let mech = super::super::mjcf::read(&text).unwrap();
        let s = skeleton(&mech);
        // Body a: a link to its child b's origin (they coincide: none), a com sphere from its
        // geoms' mass, the hinge's axis.
        let of = |b: usize| -> Vec<&str> {
            s.iter()
                .filter(|v| v.body == Some(b))
                .map(|v| v.name.as_str())
                .collect()
        };
        assert!(of(0).contains(&"axis"), "{:?}", of(0));
        let axis = s
            .iter()
            .find(|v| v.body == Some(1) && v.name == "axis")
            .unwrap();
        assert_eq!(axis.rgba, SLIDE);
        // The slide's axis x: the cylinder's z axis is the world's x.
        let z = [axis.rot[0][2], axis.rot[1][2], axis.rot[2][2]];
        assert!(tree::norm(tree::sub(z, [1.0, 0.0, 0.0])) < 1e-12, "{z:?}");
        let frames = joint_frames(&mech);
        assert_eq!(frames.len(), 3);
        assert_eq!(
            frames.iter().map(|f| f.body).collect::<Vec<_>>(),
            [Some(0), Some(1), Some(2)]
        );
    }

    #[test]
    fn emitted_constants_name_the_runtime_types() {
        let mech = super::super::urdf::read(URDF).unwrap();
        let v = urdf(Path::new("/x/r.urdf"), URDF, &mech);
        let t = items(
            &Ident::new("R", proc_macro2::Span::call_site()),
            &mech,
            Some(&v),
            &[],
        )
        .to_string();
        for want in [
            "pub const VISUALS",
            "pub const SKELETON",
            "pub const JOINT_FRAMES",
            "pub const SITES",
            "pub const GEOMETRY",
            "Shape :: Box",
        ] {
            assert!(t.contains(want), "{want} in {t}");
        }
    }
}
