//! An MJCF document as MuJoCo's compiler sees it before it builds the model: `<include>`s
//! spliced in, default classes applied to every element, `<frame>`s folded into the poses of
//! what they hold. The MJCF reader (`mjcf.rs`) then reads plain elements.
//!
//! Every pass is iterative (explicit stacks), so no XML depth reaches the Rust stack, and the
//! document's depth is bounded ([`MAX_DEPTH`]) before any pass runs.
//!
//! What MuJoCo does, and so what is done here:
//! - `<include file>`: replaced by the children of the included file's root element; the path
//!   is tried relative to the main file's directory, then to the including file's; a file
//!   included twice (so also a cycle) is an error.
//! - Default classes: the top-level `<default>` is the class `main`; a nested
//!   `<default class="c">` starts from its parent's attributes. An element uses its `class`,
//!   else the `childclass` of the nearest enclosing body or frame that has one, else `main`;
//!   elements outside the body tree (tendons, actuators, equalities, meshes) use their `class`
//!   or `main`. `<freejoint>` takes no defaults. Attributes the element writes win; an element
//!   that gives an orientation (`quat`, `euler`, ...) drops the class's orientation.
//!   Actuators keep the chain of their class's actuator defaults ([`Doc::actuator_defaults`]),
//!   which `mjcf.rs` replays as MuJoCo does (a `<position>` default sets the gain and bias
//!   of the class's one actuator default).
//! - `<frame pos orientation childclass>`: its children are moved into the enclosing body with
//!   the frame's pose composed into theirs (bodies, geoms, sites, cameras, lights, frames:
//!   `pos` and orientation; joints: `pos` and `axis`; `fromto` endpoints).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::tree::{self, M3, V3};
use super::xml::{read_model_file, Errors, XmlNode};

/// The deepest element nesting read (MuJoCo's deepest robots nest a few dozen levels).
pub const MAX_DEPTH: usize = super::xml::MAX_DEPTH;

/// Attributes that give an orientation.
pub const ORIENTATIONS: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

/// One element.
#[derive(Clone, Debug)]
pub struct Element {
    /// Its tag.
    pub tag: String,
    /// Its attributes in file order (after defaults: the class's, then the element's own).
    pub attrs: Vec<(String, String)>,
    /// Its child elements.
    pub kids: Vec<usize>,
    /// Its 1-based line.
    pub line: u32,
    /// The file it is in: an index of [`Doc::files`] (0: the main file).
    pub file: usize,
    /// The resolved default class (an index of [`Doc::classes`]), for elements that take one.
    pub class: Option<usize>,
}

/// A default class.
#[derive(Clone, Debug, Default)]
pub struct Class {
    /// Its name (`main` for the top level).
    #[allow(dead_code)]
    pub name: String,
    /// Its parent class.
    pub parent: Option<usize>,
    /// Per element kind (`joint`, `geom`, `site`, `tendon`, `equality`, `mesh`, ...): the
    /// attributes it sets, with its parents' already applied.
    pub attrs: HashMap<String, Vec<(String, String)>>,
    /// Its actuator default elements (any actuator tag), in order, after its parents'.
    pub actuators: Vec<usize>,
}

/// A resolved document.
pub struct Doc {
    /// Every element; unreachable ones (spliced out) stay in place.
    pub els: Vec<Element>,
    /// The root `<mujoco>`.
    pub root: usize,
    /// The files read: the main file first (as the user wrote its path), then includes.
    pub files: Vec<String>,
    /// Default classes; 0 is `main`.
    pub classes: Vec<Class>,
}

/// A handle on one element of a [`Doc`].
#[derive(Clone, Copy)]
pub struct Node<'d> {
    /// The document.
    pub doc: &'d Doc,
    /// The element.
    pub id: usize,
}

impl<'d> Node<'d> {
    fn el(&self) -> &'d Element {
        &self.doc.els[self.id]
    }
    /// The attribute's text.
    pub fn attribute(&self, name: &str) -> Option<&'d str> {
        self.el()
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// The tag.
    pub fn tag(&self) -> &'d str {
        &self.el().tag
    }
    /// Whether the tag is `t`.
    pub fn has_tag_name(&self, t: &str) -> bool {
        self.el().tag == t
    }
    /// The child elements.
    pub fn children(self) -> impl Iterator<Item = Node<'d>> {
        let doc = self.doc;
        self.el().kids.iter().map(move |&id| Node { doc, id })
    }
    /// The 1-based line.
    pub fn line(&self) -> u32 {
        self.el().line
    }
    /// The resolved default class.
    pub fn class(&self) -> Option<usize> {
        self.el().class
    }
}

impl XmlNode for Node<'_> {
    fn attr_text(&self, name: &str) -> Option<&str> {
        self.attribute(name)
    }
    fn tag_text(&self) -> &str {
        self.tag()
    }
    fn line_number(&self) -> u32 {
        self.line()
    }
    fn file_name(&self) -> Option<String> {
        let f = self.el().file;
        (f > 0).then(|| self.doc.files[f].clone())
    }
}

impl Doc {
    /// The root element.
    pub fn root(&self) -> Node<'_> {
        Node {
            doc: self,
            id: self.root,
        }
    }

    /// A handle on element `id`.
    pub fn node(&self, id: usize) -> Node<'_> {
        Node { doc: self, id }
    }

    /// The actuator default elements an actuator of `class` starts from, in order.
    pub fn actuator_defaults(&self, class: Option<usize>) -> Vec<Node<'_>> {
        let c = class.unwrap_or(0);
        self.classes[c]
            .actuators
            .iter()
            .map(|&id| self.node(id))
            .collect()
    }
}

/// Where the document comes from.
pub struct Source<'a> {
    /// The main file's text.
    pub text: &'a str,
    /// How errors name the main file.
    pub name: String,
    /// The main file's directory (includes are found from it).
    pub dir: PathBuf,
}

/// Converts a parsed XML document into elements (iteratively), bounding the depth.
fn convert(
    doc: &roxmltree::Document,
    file: usize,
    els: &mut Vec<Element>,
    errors: &mut Errors,
    file_name: Option<&str>,
) -> Option<usize> {
    let root = doc.root_element();
    let mut stack: Vec<(roxmltree::Node, Option<usize>, usize)> = vec![(root, None, 1)];
    let mut out_root = None;
    while let Some((n, parent, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            let mut e = Errors::default();
            e.at(
                n,
                format!("the XML nests deeper than {MAX_DEPTH} elements: no model file needs that"),
            );
            if let Some(f) = file_name {
                for x in &mut e.list {
                    x.file = Some(f.to_string());
                }
            }
            errors.list.extend(e.list);
            return None;
        }
        let id = els.len();
        els.push(Element {
            tag: n.tag_name().name().to_string(),
            attrs: n
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect(),
            kids: Vec::new(),
            line: n.line_number(),
            file,
            class: None,
        });
        match parent {
            Some(p) => els[p].kids.push(id),
            None => out_root = Some(id),
        }
        let kids: Vec<_> = n.children().filter(|c| c.is_element()).collect();
        for k in kids.into_iter().rev() {
            stack.push((k, Some(id), depth + 1));
        }
    }
    out_root
}

/// Parses XML text with its errors located in `file`.
fn parse_text<'t>(
    text: &'t str,
    file_name: Option<&str>,
    errors: &mut Errors,
) -> Option<roxmltree::Document<'t>> {
    if let Some(l) = super::xml::depth_exceeded(text) {
        errors.list.push(super::xml::FileError {
            line: l,
            msg: format!(
                "the XML nests deeper than {MAX_DEPTH} elements: no model file needs that"
            ),
            file: file_name.map(str::to_string),
        });
        return None;
    }
    let opts = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: 4_000_000,
    };
    match roxmltree::Document::parse_with_options(text, opts) {
        Ok(d) => Some(d),
        Err(e) => {
            errors.list.push(super::xml::FileError {
                line: e.pos().row,
                msg: format!("malformed XML: {e}"),
                file: file_name.map(str::to_string),
            });
            None
        }
    }
}

/// Reads a document: includes, then default classes, then frames. `settings` gives the angle
/// unit and Euler sequence the frames' orientations are read with.
pub fn load(src: &Source, errors: &mut Errors) -> Option<Doc> {
    let main = parse_text(src.text, None, errors)?;
    let mut els = Vec::new();
    let root = convert(&main, 0, &mut els, errors, None)?;
    if els[root].tag != "mujoco" {
        errors.list.push(super::xml::FileError {
            line: els[root].line,
            msg: format!(
                "an MJCF file's root element is <mujoco>, not <{}>",
                els[root].tag
            ),
            file: None,
        });
        return None;
    }
    let mut doc = Doc {
        els,
        root,
        files: vec![src.name.clone()],
        classes: Vec::new(),
    };
    let mut dirs = vec![src.dir.clone()];
    includes(&mut doc, &mut dirs, src, errors);
    if !errors.list.is_empty() {
        return None;
    }
    defaults(&mut doc, errors);
    if !errors.list.is_empty() {
        return None;
    }
    let settings = angle_settings(&doc, errors);
    frames(&mut doc, &settings, errors);
    if !errors.list.is_empty() {
        return None;
    }
    Some(doc)
}

/// Splices every `<include>` (iteratively: included files may include more).
fn includes(doc: &mut Doc, dirs: &mut Vec<PathBuf>, src: &Source, errors: &mut Errors) {
    let mut seen: Vec<PathBuf> = Vec::new();
    if let Ok(p) = src.dir.join(&src.name).canonicalize() {
        seen.push(p);
    }
    // (element, parent) pairs in document order.
    let mut stack = vec![(doc.root, usize::MAX)];
    while let Some((id, parent)) = stack.pop() {
        if doc.els[id].tag != "include" {
            for &k in doc.els[id].kids.iter().rev() {
                stack.push((k, id));
            }
            continue;
        }
        let node = doc.node(id);
        let at = |errors: &mut Errors, msg: String| errors.at(node, msg);
        if !doc.els[id].kids.is_empty() {
            at(errors, "<include> cannot have children".into());
            continue;
        }
        let Some(file) = node.attribute("file").map(str::to_string) else {
            at(errors, "<include> needs a `file`".into());
            continue;
        };
        if parent == usize::MAX {
            continue;
        }
        let here = doc.els[id].file;
        let candidates = [dirs[0].join(&file), dirs[here].join(&file)];
        let Some(path) = candidates.iter().find(|p| p.exists()).cloned() else {
            at(
                errors,
                format!(
                    "<include file=\"{file}\">: no such file (looked for `{}` and `{}`)",
                    candidates[0].display(),
                    candidates[1].display()
                ),
            );
            continue;
        };
        let canon = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&canon) {
            at(
                errors,
                format!("<include file=\"{file}\">: the file is included already (an include cycle, or twice)"),
            );
            continue;
        }
        seen.push(canon);
        let text = match read_model_file(&path) {
            Ok(t) => t,
            Err(e) => {
                at(errors, format!("<include file=\"{file}\">: {e}"));
                continue;
            }
        };
        let index = doc.files.len();
        doc.files.push(file.clone());
        dirs.push(path.parent().map(Path::to_path_buf).unwrap_or_default());
        let Some(parsed) = parse_text(&text, Some(&file), errors) else {
            continue;
        };
        let Some(r) = convert(&parsed, index, &mut doc.els, errors, Some(&file)) else {
            continue;
        };
        let kids = doc.els[r].kids.clone();
        let siblings = &mut doc.els[parent].kids;
        let pos = siblings.iter().position(|&k| k == id).unwrap_or(0);
        siblings.splice(pos..=pos, kids.iter().copied());
        for &k in kids.iter().rev() {
            stack.push((k, parent));
        }
    }
}

/// Overlays `over` on `base` (MuJoCo's rule for one element: the later attribute wins; an
/// orientation replaces every orientation).
fn overlay(base: &mut Vec<(String, String)>, over: &[(String, String)]) {
    if over.iter().any(|(k, _)| ORIENTATIONS.contains(&k.as_str())) {
        base.retain(|(k, _)| !ORIENTATIONS.contains(&k.as_str()));
    }
    for (k, v) in over {
        match base.iter_mut().find(|(bk, _)| bk == k) {
            Some(slot) => slot.1 = v.clone(),
            None => base.push((k.clone(), v.clone())),
        }
    }
}

/// The actuator tags (every one shares the class's one actuator default).
pub const ACTUATOR_TAGS: [&str; 13] = [
    "general",
    "motor",
    "position",
    "velocity",
    "damper",
    "intvelocity",
    "orientation",
    "pid",
    "cylinder",
    "muscle",
    "adhesion",
    "dcmotor",
    "plugin",
];

/// Reads the default classes and applies them to every element that takes one.
fn defaults(doc: &mut Doc, errors: &mut Errors) {
    doc.classes.push(Class {
        name: "main".into(),
        ..Class::default()
    });
    let mut names: HashMap<String, usize> = HashMap::from([("main".to_string(), 0)]);
    // Top-level <default> sections: the class `main` (repeated ones merge).
    let tops: Vec<usize> = doc.els[doc.root]
        .kids
        .iter()
        .copied()
        .filter(|&k| doc.els[k].tag == "default")
        .collect();
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (default element, its class)
    for t in tops.into_iter().rev() {
        let node = doc.node(t);
        if let Some(c) = node.attribute("class") {
            if c != "main" {
                errors.at(
                    node,
                    format!(
                        "the top-level <default> is the class `main`; it cannot be named `{c}`"
                    ),
                );
            }
        }
        stack.push((t, 0));
    }
    // Depth first, parents before children (a class copies its parent's when made).
    let mut order = Vec::new();
    while let Some((d, c)) = stack.pop() {
        order.push((d, c));
        let kids = doc.els[d].kids.clone();
        for &k in kids.iter().rev() {
            if doc.els[k].tag != "default" {
                continue;
            }
            let node = doc.node(k);
            let Some(name) = node.attribute("class").map(str::to_string) else {
                errors.at(node, "a nested <default> needs a `class` name");
                continue;
            };
            if names.contains_key(&name) {
                errors.at(node, format!("the default class `{name}` is defined twice"));
                continue;
            }
            let parent = doc.classes[c].clone();
            let id = doc.classes.len();
            doc.classes.push(Class {
                name: name.clone(),
                parent: Some(c),
                attrs: parent.attrs,
                actuators: parent.actuators,
            });
            names.insert(name, id);
            stack.push((k, id));
        }
    }
    // A class's own elements, applied when the class is first reached: since children are
    // pushed after their parent's own elements are read, apply in `order`.
    // (The parent's attributes were copied before its own elements were applied, so re-copy.)
    for (d, c) in &order {
        if let Some(p) = doc.classes[*c].parent {
            let parent = doc.classes[p].clone();
            doc.classes[*c].attrs = parent.attrs;
            doc.classes[*c].actuators = parent.actuators;
        }
        let kids = doc.els[*d].kids.clone();
        for k in kids {
            let tag = doc.els[k].tag.clone();
            if tag == "default" {
                continue;
            }
            if ACTUATOR_TAGS.contains(&tag.as_str()) {
                doc.classes[*c].actuators.push(k);
            } else {
                let attrs = doc.els[k].attrs.clone();
                let slot = doc.classes[*c].attrs.entry(tag).or_default();
                overlay(slot, &attrs);
            }
        }
    }
    // Apply to the elements: (element, inherited class, the section it is in).
    let mut stack: Vec<(usize, usize, &'static str)> = Vec::new();
    for &k in doc.els[doc.root].kids.iter().rev() {
        if doc.els[k].tag != "default" {
            stack.push((k, 0, ""));
        }
    }
    while let Some((id, inherited, section)) = stack.pop() {
        let tag = doc.els[id].tag.clone();
        let node = doc.node(id);
        // The default kind the element takes, by where it is.
        let kind: Option<&str> = match (section, tag.as_str()) {
            ("worldbody", "joint" | "geom" | "site" | "camera" | "light") => Some(tag.as_str()),
            ("asset", "mesh" | "material" | "texture" | "hfield") => Some(tag.as_str()),
            ("tendon", "fixed" | "spatial") => Some("tendon"),
            ("equality", _) => Some("equality"),
            ("actuator", t) if ACTUATOR_TAGS.contains(&t) => Some("actuator"),
            _ => None,
        };
        let own = node.attribute("class").map(str::to_string);
        let class = match &own {
            Some(c) => match names.get(c) {
                Some(&i) => i,
                None => {
                    errors.at(
                        node,
                        format!("<{tag}>: the default class `{c}` does not exist"),
                    );
                    inherited
                }
            },
            None => inherited,
        };
        let mut next = inherited;
        if matches!(tag.as_str(), "body" | "frame") {
            if let Some(c) = node.attribute("childclass") {
                match names.get(c) {
                    Some(&i) => next = i,
                    None => errors.at(
                        node,
                        format!("<{tag}>: the default class `{c}` (childclass) does not exist"),
                    ),
                }
            }
        }
        if let Some(kind) = kind {
            doc.els[id].class = Some(class);
            if kind != "actuator" {
                if let Some(base) = doc.classes[class].attrs.get(kind) {
                    let mut merged = base.clone();
                    overlay(&mut merged, &doc.els[id].attrs);
                    doc.els[id].attrs = merged;
                }
            }
            doc.els[id].attrs.retain(|(k, _)| k != "class");
        }
        // What the children are in.
        let inner: &'static str = match (section, tag.as_str()) {
            ("", "worldbody") => "worldbody",
            ("", "asset") => "asset",
            ("", "tendon") => "tendon",
            ("", "equality") => "equality",
            ("", "actuator") => "actuator",
            ("worldbody", "body" | "frame") => "worldbody",
            _ => "inside",
        };
        let pass = if inner == "worldbody" { next } else { 0 };
        for &k in doc.els[id].kids.iter().rev() {
            stack.push((k, pass, inner));
        }
    }
}

/// The compiler's angle unit and Euler sequence (needed to fold frames).
#[derive(Clone)]
pub struct AngleSettings {
    /// Angles in degrees (MJCF's default).
    pub degree: bool,
    /// The Euler sequence (`xyz` by default).
    pub eulerseq: String,
}

/// Reads `<compiler angle eulerseq>` (every `<compiler>`, the last one winning).
pub fn angle_settings(doc: &Doc, errors: &mut Errors) -> AngleSettings {
    let mut s = AngleSettings {
        degree: true,
        eulerseq: "xyz".into(),
    };
    for c in doc.root().children().filter(|c| c.has_tag_name("compiler")) {
        match c.attribute("angle") {
            Some("radian") => s.degree = false,
            Some("degree") => s.degree = true,
            None => {}
            Some(other) => errors.at(
                c,
                format!("<compiler>: unknown angle unit `{other}` (give `degree` or `radian`)"),
            ),
        }
        if let Some(e) = c.attribute("eulerseq") {
            if e.len() != 3 || !e.chars().all(|ch| "xyzXYZ".contains(ch)) {
                errors.at(
                    c,
                    format!("<compiler>: `eulerseq=\"{e}\"` is not three of x, y, z, X, Y, Z"),
                );
            } else {
                s.eulerseq = e.into();
            }
        }
    }
    s
}

/// The numbers of an attribute, or an error.
fn nums(node: Node, name: &str, n: usize, errors: &mut Errors) -> Option<Vec<f64>> {
    super::xml::numbers(node, name, n, errors)
}

/// The orientation an element gives (identity when none), with the document's settings.
pub fn orientation(node: Node, s: &AngleSettings, errors: &mut Errors) -> M3 {
    let given: Vec<&str> = ORIENTATIONS
        .into_iter()
        .filter(|k| node.attribute(k).is_some())
        .collect();
    if given.len() > 1 {
        errors.at(
            node,
            format!(
                "<{}>: give one orientation, not {}",
                node.tag(),
                given.join(" and ")
            ),
        );
    }
    let angle = |x: f64| if s.degree { x.to_radians() } else { x };
    let tag = node.tag();
    if let Some(q) = nums(node, "quat", 4, errors) {
        let n = (q.iter().map(|x| x * x).sum::<f64>()).sqrt();
        if n < 1e-12 {
            errors.at(node, format!("<{tag}>: `quat` is zero"));
            return tree::IDENTITY;
        }
        return tree::quat_matrix([q[0], q[1], q[2], q[3]]);
    }
    if let Some(a) = nums(node, "axisangle", 4, errors) {
        let axis = [a[0], a[1], a[2]];
        let n = tree::norm(axis);
        if n < 1e-12 {
            errors.at(node, format!("<{tag}>: the axis of `axisangle` is zero"));
            return tree::IDENTITY;
        }
        return tree::axis_angle(tree::scale(1.0 / n, axis), angle(a[3]));
    }
    if let Some(e) = nums(node, "euler", 3, errors) {
        let mut r = tree::IDENTITY;
        for (k, c) in s.eulerseq.chars().enumerate() {
            let axis = match c.to_ascii_lowercase() {
                'x' => [1.0, 0.0, 0.0],
                'y' => [0.0, 1.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            let rk = tree::axis_angle(axis, angle(e[k]));
            // Lower case: rotating axes (intrinsic); upper case: fixed axes (extrinsic).
            r = if c.is_ascii_lowercase() {
                tree::mul(&r, &rk)
            } else {
                tree::mul(&rk, &r)
            };
        }
        return r;
    }
    if let Some(a) = nums(node, "xyaxes", 6, errors) {
        let x = [a[0], a[1], a[2]];
        let y = [a[3], a[4], a[5]];
        let nx = tree::norm(x);
        if nx <= 1e-12 {
            errors.at(node, format!("<{tag}>: `xyaxes` are degenerate"));
            return tree::IDENTITY;
        }
        let x = tree::scale(1.0 / nx, x);
        let y = tree::sub(y, tree::scale(tree::dot(x, y), x));
        let ny = tree::norm(y);
        if ny <= 1e-12 {
            errors.at(node, format!("<{tag}>: `xyaxes` are degenerate"));
            return tree::IDENTITY;
        }
        let y = tree::scale(1.0 / ny, y);
        let z = tree::cross(x, y);
        return tree::transpose(&[x, y, z]);
    }
    if let Some(z) = nums(node, "zaxis", 3, errors) {
        let z = [z[0], z[1], z[2]];
        let n = tree::norm(z);
        if n < 1e-12 {
            errors.at(node, format!("<{tag}>: `zaxis` is zero"));
            return tree::IDENTITY;
        }
        return tree::z_to(tree::scale(1.0 / n, z));
    }
    tree::IDENTITY
}

fn text3(v: V3) -> String {
    format!("{} {} {}", v[0], v[1], v[2])
}

fn set(attrs: &mut Vec<(String, String)>, k: &str, v: String) {
    match attrs.iter_mut().find(|(a, _)| a == k) {
        Some(slot) => slot.1 = v,
        None => attrs.push((k.to_string(), v)),
    }
}

/// Folds every `<frame>` into its children's poses and moves them into the enclosing body.
fn frames(doc: &mut Doc, s: &AngleSettings, errors: &mut Errors) {
    let mut stack: Vec<usize> = doc
        .root()
        .children()
        .filter(|c| c.has_tag_name("worldbody"))
        .map(|c| c.id)
        .collect();
    while let Some(b) = stack.pop() {
        let mut i = 0;
        while i < doc.els[b].kids.len() {
            let k = doc.els[b].kids[i];
            if doc.els[k].tag != "frame" {
                if doc.els[k].tag == "body" {
                    stack.push(k);
                }
                i += 1;
                continue;
            }
            let fnode = doc.node(k);
            let p = super::xml::vec3(fnode, "pos", [0.0; 3], errors);
            let r = orientation(fnode, s, errors);
            let kids = doc.els[k].kids.clone();
            for &c in &kids {
                let cn = doc.node(c);
                let tag = cn.tag().to_string();
                match tag.as_str() {
                    "body" | "geom" | "site" | "camera" | "light" | "frame" => {
                        let cp = super::xml::vec3(cn, "pos", [0.0; 3], errors);
                        let cr = orientation(cn, s, errors);
                        let fromto = nums(cn, "fromto", 6, errors);
                        let attrs = &mut doc.els[c].attrs;
                        if let Some(ft) = fromto {
                            let a = tree::add(p, tree::mul_v(&r, [ft[0], ft[1], ft[2]]));
                            let bb = tree::add(p, tree::mul_v(&r, [ft[3], ft[4], ft[5]]));
                            set(attrs, "fromto", format!("{} {}", text3(a), text3(bb)));
                        }
                        let np = tree::add(p, tree::mul_v(&r, cp));
                        let nr = tree::mul(&r, &cr);
                        attrs.retain(|(a, _)| !ORIENTATIONS.contains(&a.as_str()));
                        set(attrs, "pos", text3(np));
                        let q = tree::matrix_quat(&nr);
                        set(
                            attrs,
                            "quat",
                            format!("{} {} {} {}", q[0], q[1], q[2], q[3]),
                        );
                    }
                    "joint" => {
                        let cp = super::xml::vec3(cn, "pos", [0.0; 3], errors);
                        let axis = super::xml::vec3(cn, "axis", [0.0, 0.0, 1.0], errors);
                        let attrs = &mut doc.els[c].attrs;
                        set(attrs, "pos", text3(tree::add(p, tree::mul_v(&r, cp))));
                        set(attrs, "axis", text3(tree::mul_v(&r, axis)));
                    }
                    "freejoint" | "inertial" => {
                        errors.at(
                            cn,
                            format!("<{tag}> inside a <frame>: MuJoCo does not allow it"),
                        );
                    }
                    _ => {}
                }
            }
            // Replace the frame by its children; re-scan from the same position (a frame
            // inside is folded next, with this frame's pose already in its own).
            doc.els[b].kids.splice(i..=i, kids.iter().copied());
        }
    }
}
