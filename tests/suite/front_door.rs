//! The README opens with the crate's front page: its first two code blocks (a robot from a file,
//! stepped and drawn; bodies and joints) must be the code that `src/lib.rs` compiles and runs
//! as doctests, so that what a new user copies from the README works.

/// The lines of the ```` ```rust ```` code blocks of a Markdown text, one entry per block.
fn markdown_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```rust") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(b), _) => b.push(line.to_owned()),
            _ => {}
        }
    }
    blocks
}

/// The visible lines of the doctests in a file's `//!` comments (hidden `# ` lines dropped).
fn doc_blocks(source: &str) -> Vec<Vec<String>> {
    let doc: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in doc {
        match (&mut current, line) {
            (None, "```") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(b), l) if !(l.starts_with("# ") || l == "#") => b.push(l.to_owned()),
            _ => {}
        }
    }
    blocks
}

/// The code lines that matter for the comparison: not blank, and outside `fn main` wrappers.
fn code(block: &[String]) -> Vec<String> {
    block
        .iter()
        .map(|l| l.trim_end().to_owned())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

#[test]
fn the_readme_opens_with_the_front_page_code() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).unwrap();
    let (readme, lib) = (markdown_blocks(&readme), doc_blocks(&lib));
    assert!(readme.len() >= 2 && lib.len() >= 2);
    assert_eq!(code(&readme[0]), code(&lib[0]), "a robot from a file");
    // The README shows the bodies model; the front page also steps it.
    let bodies = code(&readme[1]);
    let front = code(&lib[1]);
    assert!(
        front.windows(bodies.len()).any(|w| w == bodies.as_slice()),
        "the README's bodies and joints block is not in the front page's:\n{}",
        bodies.join("\n")
    );
}
