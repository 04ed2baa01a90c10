//! The runtime's files import no file of a later layer and no file that imports them back
//! (`docs/architecture.md`, "The runtime's layers"), and the macro's files none of a later
//! pass ("The macro's passes"), test modules excepted. Reads `spark-runtime/src/**/*.rs`, collects
//! per file the paths it names (`use crate::…`, `crate::…`, `super::…` in code, and in a file
//! that declares child modules, `child::…`), maps each path to the file that defines it
//! (the longest module prefix; a name re-exported by `lib.rs` to its defining module), and
//! fails on an import of a later layer and on any import circle, printing it.
//!
//! Comments (doc links included) and the `#[cfg(test)]` module at the end of a file are not
//! imports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Import edges that are known and being removed elsewhere; each is allowed until then (none
/// today: the integrator/simulate circle is gone).
const ALLOWED: &[(&str, &str)] = &[];

/// The layer of a file (`docs/architecture.md`): each may import only its own and earlier
/// layers.
fn layer(file: &str) -> usize {
    let top = file.split('/').next().unwrap_or(file);
    match top {
        "error.rs" | "options.rs" | "math.rs" | "geometry.rs" => 0,
        "linalg" | "convert.rs" => 1,
        "model" => 2,
        "tableau" => 3,
        "step" => 4,
        "method" => 5,
        "integrator.rs" | "integrator" | "forward.rs" => 6,
        "simulate" => 7,
        "control" | "lib.rs" => 8,
        other => panic!("{file}: no layer for `{other}` in docs/architecture.md"),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file relative to `src`: `step/mod.rs` → `[step]`, `lib.rs` → `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.split('/').map(str::to_owned).collect();
    let last = parts.pop().expect("file name");
    if last != "mod.rs" && last != "lib.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// The code of a file without comments, string literals and its trailing test module.
fn code_of(text: &str) -> String {
    // The test module: `#[cfg(test)]` followed by `mod`.
    let test_module = text
        .match_indices("#[cfg(test)]")
        .find(|(at, m)| text[at + m.len()..].trim_start().starts_with("mod "));
    let text = match test_module {
        Some((at, _)) => &text[..at],
        None => text,
    };
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            i = end;
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = text[i..].chars().next().expect("char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Expands a use tree (`a::{b, c::{d as e, self}}`) into its paths.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').expect("closing brace")];
        let base = join(prefix, head);
        // Split the inner list at top-level commas.
        let (mut depth, mut from) = (0, 0);
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[from..k], &base, out);
                    from = k + 1;
                }
                _ => {}
            }
        }
        expand(&inner[from..], &base, out);
    } else {
        let path = tree.split(" as ").next().expect("path").trim();
        let path = path.trim_end_matches("::*");
        let path = if path == "self" {
            prefix.to_owned()
        } else {
            join(prefix, path)
        };
        out.push(path);
    }
}

fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{rest}"),
    }
}

/// Every path a file's code names: its `use` trees expanded and the paths in its code.
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let end = tail.find(';').unwrap_or(tail.len());
        expand(&tail[..end], "", &mut out);
        rest = &tail[end..];
    }
    // Paths in expressions and types.
    let bytes = code.as_bytes();
    for (k, _) in code.match_indices("::") {
        // The identifier chain ending at this `::`.
        let mut s = k;
        while s > 0
            && (bytes[s - 1].is_ascii_alphanumeric()
                || bytes[s - 1] == b'_'
                || bytes[s - 1] == b':')
        {
            s -= 1;
        }
        if s > 0 && bytes[s - 1] == b'$' {
            continue;
        }
        let mut e = k + 2;
        while e < bytes.len()
            && (bytes[e].is_ascii_alphanumeric() || bytes[e] == b'_' || bytes[e] == b':')
        {
            e += 1;
        }
        let path = code[s..e].trim_end_matches(':');
        let first = path.split("::").next().unwrap_or("");
        if first == "crate" || first == "super" || children.contains(first) {
            out.push(path.to_owned());
        }
    }
    out
}

fn find_word(s: &str, word: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(k) = s[from..].find(word) {
        let at = from + k;
        let before = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
        let after = b
            .get(at + word.len())
            .is_some_and(|c| c.is_ascii_whitespace());
        if before && after {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

struct Crate {
    /// Module path → file.
    modules: BTreeMap<Vec<String>, String>,
    /// `(module, name)` → the absolute path a `pub use` in that module re-exports as `name`.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Crate {
    /// The file defining `segs` (absolute module segments): the longest module prefix, or,
    /// when the next segment is a name that module re-exports, the file defining that.
    fn resolve(&self, segs: &[String], depth: usize) -> Option<String> {
        for len in (0..=segs.len()).rev() {
            let Some(file) = self.modules.get(&segs[..len]) else {
                continue;
            };
            if len < segs.len() && depth < 16 {
                let key = (segs[..len].to_vec(), segs[len].clone());
                if let Some(target) = self.reexports.get(&key) {
                    let mut full = target.clone();
                    full.extend(segs[len + 1..].iter().cloned());
                    return self.resolve(&full, depth + 1);
                }
            }
            return Some(file.clone());
        }
        None
    }
}

/// The `pub use` statements of a file: removed from its code (a module's re-exports are its
/// interface, not what its code depends on) and returned.
fn split_reexports(code: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(code.len());
    let mut stmts = Vec::new();
    let mut rest = code;
    loop {
        let next = ["pub use ", "pub(crate) use "]
            .iter()
            .filter_map(|p| rest.find(p).map(|at| (at, p.len())))
            .min();
        let Some((at, skip)) = next else { break };
        out.push_str(&rest[..at]);
        let tail = &rest[at + skip..];
        let end = tail.find(';').expect("use ends");
        stmts.push(tail[..end].to_owned());
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    (out, stmts)
}

/// The absolute path of `path` named in `module` (whose child modules are `children`);
/// `None` for another crate's path.
fn absolute(path: &str, module: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let segs: Vec<String> = path
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    let first = segs.first()?.as_str();
    Some(match first {
        "crate" => segs[1..].to_vec(),
        "super" => module[..module.len().saturating_sub(1)]
            .iter()
            .cloned()
            .chain(segs[1..].iter().cloned())
            .collect(),
        "self" => module
            .iter()
            .cloned()
            .chain(segs[1..].iter().cloned())
            .collect(),
        c if children.contains(c) => module.iter().cloned().chain(segs).collect(),
        _ => return None,
    })
}

/// The child modules a file declares.
fn children_of(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'))
                .map(str::to_owned)
        })
        .collect()
}

#[test]
fn the_runtime_has_no_import_circle_and_no_import_of_a_later_layer() {
    check_layers(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), layer);
}

/// The macro's passes (`docs/architecture.md`, "The macro's passes"): each file may import only
/// its own and earlier passes.
fn macro_layer(file: &str) -> usize {
    let top = file.split('/').next().unwrap_or(file);
    match top {
        "ctxt.rs" | "sym" | "saddle.rs" => 0,
        "parse.rs" => 1,
        "depth.rs" | "depth" => 2,
        "unroll.rs" | "unroll" => 3,
        "mechanism" => 4,
        "params.rs" => 5,
        "lower.rs" => 6,
        "check.rs" | "forces.rs" => 7,
        "model.rs" | "model" => 8,
        "expand.rs" | "expand" | "lib.rs" => 9,
        other => panic!("{file}: no pass for `{other}` in docs/architecture.md"),
    }
}

#[test]
fn the_macro_has_no_import_circle_and_no_import_of_a_later_pass() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spark-macros/src");
    check_layers(&src, macro_layer);
}

/// The files of the test modules that `file` (its `text`) declares (`#[cfg(test)]`, then an
/// optional `#[path = ".."]`, then `mod name;`): tests may import any layer.
fn test_modules(file: &str, text: &str, out: &mut BTreeSet<String>) {
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    // A module's children live in its directory: `a/b.rs` → `a/b/`, `a/mod.rs` → `a/`.
    let own = match file.rsplit_once('/').map_or(file, |(_, f)| f) {
        "mod.rs" | "lib.rs" => dir.to_owned(),
        f => join_dir(dir, f.trim_end_matches(".rs")),
    };
    for (at, m) in text.match_indices("#[cfg(test)]") {
        let mut rest = text[at + m.len()..].trim_start();
        let mut path = None;
        if let Some(tail) = rest.strip_prefix("#[path = \"") {
            let end = tail.find('"').expect("path ends");
            path = Some(join_dir(dir, &tail[..end]));
            rest = tail[end..].trim_start_matches("\"]").trim_start();
        }
        let Some(tail) = rest.strip_prefix("mod ") else {
            continue;
        };
        let Some(name) = tail.split(';').next().filter(|n| !n.contains('{')) else {
            continue;
        };
        out.insert(path.unwrap_or_else(|| join_dir(&own, &format!("{}.rs", name.trim()))));
    }
}

fn join_dir(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_owned()
    } else {
        format!("{dir}/{rest}")
    }
}

/// Fails on an import of a later layer and on any import circle among the files under `src`.
fn check_layers(src: &Path, layer: fn(&str) -> usize) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let name = |p: &Path| {
        p.strip_prefix(src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut krate = Crate {
        modules: BTreeMap::new(),
        reexports: BTreeMap::new(),
    };
    let mut codes = BTreeMap::new();
    let mut tests = BTreeSet::new();
    for f in &files {
        let file = name(f);
        test_modules(&file, &fs::read_to_string(f).expect("readable"), &mut tests);
    }
    // A test module's own modules are tests too.
    let is_test_file = |file: &str| {
        tests.contains(file)
            || tests
                .iter()
                .any(|t| file.starts_with(&format!("{}/", t.trim_end_matches(".rs"))))
    };
    for f in &files {
        let file = name(f);
        krate.modules.insert(module_of(&file), file.clone());
        let (code, reexports) =
            split_reexports(&code_of(&fs::read_to_string(f).expect("readable")));
        let module = module_of(&file);
        let children = children_of(&code);
        for stmt in reexports {
            let mut paths = Vec::new();
            expand(&stmt, "", &mut paths);
            // `path as alias`: expand() keeps the path; the alias is the name.
            let aliases: Vec<(String, String)> = stmt
                .split([',', '{', '}'])
                .filter_map(|part| part.split_once(" as "))
                .map(|(p, a)| (p.trim().to_owned(), a.trim().to_owned()))
                .collect();
            for p in paths {
                let Some(target) = absolute(&p, &module, &children) else {
                    continue;
                };
                let alias = aliases
                    .iter()
                    .find(|(path, _)| p.ends_with(path.as_str()))
                    .map(|(_, a)| a.clone());
                let name = alias.unwrap_or_else(|| target.last().expect("segment").clone());
                krate.reexports.insert((module.clone(), name), target);
            }
        }
        codes.insert(file, code);
    }

    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut later = Vec::new();
    for (file, code) in &codes {
        if is_test_file(file) {
            continue;
        }
        let module = module_of(file);
        let children = children_of(code);
        let out = edges.entry(file.clone()).or_default();
        for path in paths_in(code, &children) {
            let Some(abs) = absolute(&path, &module, &children) else {
                continue;
            };
            let Some(target) = krate.resolve(&abs, 0) else {
                continue;
            };
            // A child file's use of its parent (`unroll/helpers.rs` of `unroll.rs`): one module
            // split over two files, not an import between modules.
            let parent_of = |child: &str, parent: &str| {
                parent.strip_suffix(".rs").is_some_and(|stem| {
                    child
                        .strip_prefix(stem)
                        .is_some_and(|rest| rest.starts_with('/') && !rest[1..].contains('/'))
                })
            };
            if target == *file
                || file == "lib.rs"
                || is_test_file(&target)
                || parent_of(file, &target)
            {
                continue;
            }
            if ALLOWED.contains(&(file.as_str(), target.as_str()))
                || ALLOWED.contains(&(target.as_str(), file.as_str()))
            {
                continue;
            }
            if layer(&target) > layer(file) {
                later.push(format!("{file} imports {target} (`{path}`), a later layer"));
            }
            out.insert(target);
        }
    }
    later.sort();
    later.dedup();

    // Circles: depth-first search for a back edge, reporting the path around it.
    let mut cycles = Vec::new();
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    fn visit<'a>(
        node: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(node, 1);
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let at = stack.iter().position(|n| *n == next).expect("on stack");
                    let mut circle: Vec<&str> = stack[at..].to_vec();
                    circle.push(next);
                    cycles.push(circle.join(" -> "));
                }
                Some(_) => {}
                None => visit(next, edges, state, stack, cycles),
            }
        }
        stack.pop();
        state.insert(node, 2);
    }
    for node in edges.keys() {
        if !state.contains_key(node.as_str()) {
            visit(node, &edges, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    assert!(
        later.is_empty() && cycles.is_empty(),
        "imports of a later layer:\n  {}\nimport circles:\n  {}",
        later.join("\n  "),
        cycles.join("\n  ")
    );
}
