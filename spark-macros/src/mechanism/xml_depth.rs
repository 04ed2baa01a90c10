//! A bound on the nesting of an XML text, checked before it is parsed: `roxmltree`'s
//! tokenizer recurses once per open element, so a deeply nested file (a generated one, or a
//! hostile one) would overflow the compiler's stack. One loop over the bytes, no recursion.

/// The deepest nesting a model file may have (URDF and MJCF files nest a few levels; an MJCF
/// body tree one level per body).
pub const MAX_DEPTH: usize = 1000;

/// `Err((line, message))` when `text` nests elements deeper than [`MAX_DEPTH`]. Comments,
/// CDATA sections, processing instructions, declarations and quoted attribute values are
/// skipped; malformed text is left to the parser.
pub fn check(text: &str) -> Result<(), (u32, String)> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    let find = |from: usize, pat: &[u8]| -> usize {
        b[from..]
            .windows(pat.len())
            .position(|w| w == pat)
            .map_or(b.len(), |k| from + k + pat.len())
    };
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            i = find(i + 4, b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = find(i + 9, b"]]>");
        } else if rest.starts_with(b"<?") {
            i = find(i + 2, b"?>");
        } else if rest.starts_with(b"<!") {
            i = find(i + 2, b">");
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = find(i + 2, b">");
        } else {
            // An opening tag: to its `>` outside quotes; `/>` closes it at once.
            let start = i;
            let mut quote = None;
            let mut j = i + 1;
            let mut empty = false;
            while j < b.len() {
                match (quote, b[j]) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, c @ (b'"' | b'\'')) => quote = Some(c),
                    (None, b'>') => {
                        empty = b[j - 1] == b'/';
                        break;
                    }
                    _ => {}
                }
                j += 1;
            }
            if !empty {
                depth += 1;
                if depth > MAX_DEPTH {
                    let line = 1 + b[..start].iter().filter(|&&c| c == b'\n').count();
                    return Err((
                        u32::try_from(line).unwrap_or(u32::MAX),
                        format!(
                            "the XML nests elements more than {MAX_DEPTH} deep: no robot model \
                             does, and reading it would overflow the compiler's stack"
                        ),
                    ));
                }
            }
            i = j + 1;
        }
    }
    Ok(())
}
