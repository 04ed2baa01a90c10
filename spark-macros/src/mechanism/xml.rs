//! What the two file readers share: errors with a line, and attribute parsing.

use roxmltree::{Document, Node};

/// A mistake in a model file: its line and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// 1-based line in the file.
    pub line: u32,
    /// One lower-case sentence.
    pub msg: String,
}

/// Collected errors of one file.
#[derive(Default, Debug)]
pub struct Errors {
    /// In the order found.
    pub list: Vec<FileError>,
}

impl Errors {
    /// Records an error at `node`'s line.
    pub fn at(&mut self, node: Node, msg: impl Into<String>) {
        self.list.push(FileError {
            line: line(node),
            msg: msg.into(),
        });
    }

    /// Records an error at a line.
    pub fn at_line(&mut self, line: u32, msg: impl Into<String>) {
        self.list.push(FileError {
            line,
            msg: msg.into(),
        });
    }
}

/// The 1-based line of a node.
pub fn line(node: Node) -> u32 {
    node.document().text_pos_at(node.range().start).row
}

/// `<tag>` as errors show an element.
pub fn tag(node: Node) -> String {
    format!("<{}>", node.tag_name().name())
}

/// The numbers of attribute `name` (`None` when absent); exactly `n` of them when `n > 0`.
pub fn numbers(node: Node, name: &str, n: usize, errors: &mut Errors) -> Option<Vec<f64>> {
    let text = node.attribute(name)?;
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
pub fn vec3(node: Node, name: &str, default: [f64; 3], errors: &mut Errors) -> [f64; 3] {
    numbers(node, name, 3, errors).map_or(default, |v| [v[0], v[1], v[2]])
}

/// One number, or `default`.
pub fn number(node: Node, name: &str, default: f64, errors: &mut Errors) -> f64 {
    numbers(node, name, 1, errors).map_or(default, |v| v[0])
}

/// The first element child named `name`.
pub fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// A unit axis from an attribute (default `default`); a zero axis is an error.
pub fn unit_axis(node: Node, name: &str, default: [f64; 3], errors: &mut Errors) -> [f64; 3] {
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
