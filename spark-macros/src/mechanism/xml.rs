//! What the two file readers share: errors with a line, attribute parsing, and reading a
//! model file with bounds (regular files only, a size limit).

use roxmltree::Document;

/// The largest model file read (bytes): a larger one is refused, not read.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// An XML element as the readers see it: roxmltree's nodes, and the MJCF reader's own
/// elements after includes, default classes and frames are resolved (`mjcf_doc.rs`).
pub trait XmlNode: Copy {
    /// The attribute's text.
    fn attr_text(&self, name: &str) -> Option<&str>;
    /// The tag name.
    fn tag_text(&self) -> &str;
    /// The 1-based line.
    fn line_number(&self) -> u32;
    /// The file it is in, when it is not the model's main file.
    fn file_name(&self) -> Option<String> {
        None
    }
}

impl XmlNode for roxmltree::Node<'_, '_> {
    fn attr_text(&self, name: &str) -> Option<&str> {
        self.attribute(name)
    }
    fn tag_text(&self) -> &str {
        self.tag_name().name()
    }
    fn line_number(&self) -> u32 {
        self.document().text_pos_at(self.range().start).row
    }
}

/// The deepest element nesting a model file may have (real robots nest a few dozen levels).
pub const MAX_DEPTH: usize = super::xml_depth::MAX_DEPTH;

/// Checks, before the XML is parsed, that elements nest at most [`MAX_DEPTH`] deep (the
/// parser and its tree would recurse on the depth): the line where the limit is passed.
pub fn depth_exceeded(text: &str) -> Option<u32> {
    super::xml_depth::scan(text)
        .depth
        .err()
        .map(|(line, _)| line)
}

/// Reads a model file (or a file it includes) with bounds: only a regular file is opened (a
/// FIFO, a device or a directory would block or never end), and only up to
/// [`MAX_FILE_BYTES`].
pub fn read_model_file(path: &std::path::Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, a socket or a device)"
        };
        return Err(format!("it is {what}: a model file must be a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "it has {} bytes, more than the {MAX_FILE_BYTES} a model file may have",
            meta.len()
        ));
    }
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("it grew past {MAX_FILE_BYTES} bytes while read"));
    }
    Ok(text)
}

/// A mistake in a model file: its line and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// 1-based line in the file.
    pub line: u32,
    /// One lower-case sentence.
    pub msg: String,
    /// The included file the line is in (`None`: the model's main file).
    pub file: Option<String>,
}

/// Collected errors of one file.
#[derive(Default, Debug)]
pub struct Errors {
    /// In the order found.
    pub list: Vec<FileError>,
}

impl Errors {
    /// Records an error at `node`'s line, once: an element read again (a default class that
    /// many elements use) does not repeat its error.
    pub fn at(&mut self, node: impl XmlNode, msg: impl Into<String>) {
        let e = FileError {
            line: node.line_number(),
            msg: msg.into(),
            file: node.file_name(),
        };
        if !self.list.contains(&e) {
            self.list.push(e);
        }
    }

    /// Records an error at a line.
    pub fn at_line(&mut self, line: u32, msg: impl Into<String>) {
        self.list.push(FileError {
            line,
            msg: msg.into(),
            file: None,
        });
    }
}

/// The 1-based line of a node.
pub fn line(node: impl XmlNode) -> u32 {
    node.line_number()
}

/// `<tag>` as errors show an element.
pub fn tag(node: impl XmlNode) -> String {
    format!("<{}>", node.tag_text())
}

/// The numbers of attribute `name` (`None` when absent); exactly `n` of them when `n > 0`.
pub fn numbers(node: impl XmlNode, name: &str, n: usize, errors: &mut Errors) -> Option<Vec<f64>> {
    let text = node.attr_text(name)?;
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        match word.parse::<f64>() {
            Ok(x) if x.is_finite() => out.push(x),
            _ => {
                errors.at(
                    node,
                    format!(
                        "{}: attribute `{name}` has `{word}`, which is not a finite number",
                        tag(node)
                    ),
                );
                return None;
            }
        }
    }
    if n > 0 && out.len() != n {
        errors.at(
            node,
            format!(
                "{}: attribute `{name}` needs {n} numbers, it has {}",
                tag(node),
                out.len()
            ),
        );
        return None;
    }
    Some(out)
}

/// A 3-vector attribute, or `default`.
pub fn vec3(node: impl XmlNode, name: &str, default: [f64; 3], errors: &mut Errors) -> [f64; 3] {
    numbers(node, name, 3, errors).map_or(default, |v| [v[0], v[1], v[2]])
}

/// One number, or `default`.
pub fn number(node: impl XmlNode, name: &str, default: f64, errors: &mut Errors) -> f64 {
    numbers(node, name, 1, errors).map_or(default, |v| v[0])
}

/// The first element child named `name`.
pub fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// A unit axis from an attribute (default `default`); a zero axis is an error.
pub fn unit_axis(
    node: impl XmlNode,
    name: &str,
    default: [f64; 3],
    errors: &mut Errors,
) -> [f64; 3] {
    let a = vec3(node, name, default, errors);
    let n = super::tree::norm(a);
    if n < 1e-12 {
        errors.at(node, format!("{}: the axis `{name}` is zero", tag(node)));
        return default;
    }
    super::tree::scale(1.0 / n, a)
}

/// Parses `text` and checks that its root element is `<root>` (`format` names the file kind in
/// the error): malformed XML is an error at its line, another root an error at that element.
pub fn document<'a>(text: &'a str, root: &str, format: &str) -> Result<Document<'a>, Errors> {
    let mut errors = Errors::default();
    if let Some(l) = depth_exceeded(text) {
        errors.at_line(
            l,
            format!("the XML nests deeper than {MAX_DEPTH} elements: no model file needs that"),
        );
        return Err(errors);
    }
    let doc = match Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            errors.at_line(e.pos().row, format!("malformed XML: {e}"));
            return Err(errors);
        }
    };
    let found = doc.root_element();
    if found.tag_name().name() != root {
        errors.at(
            found,
            format!("{format}'s root element is <{root}>, not {}", tag(found)),
        );
        return Err(errors);
    }
    Ok(doc)
}
