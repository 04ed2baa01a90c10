//! A bound on the nesting of an XML text, checked before it is parsed: `roxmltree`'s
//! tokenizer recurses once per open element, so a deeply nested file (a generated one, or a
//! hostile one) would overflow the compiler's stack. One loop over the bytes, no recursion.
//! The same scan finds xacro markup outside comments (`<xacro:…>` elements, `${…}` in
//! attribute values): a file `xacro` has not expanded yet.

/// The deepest nesting a model file may have (URDF and MJCF files nest a few levels; an MJCF
/// body tree one level per body).
pub const MAX_DEPTH: usize = 1000;

/// What [`scan`] finds.
pub struct Scan {
    /// `Err((line, message))` when the text nests elements deeper than [`MAX_DEPTH`].
    /// Comments, CDATA sections, processing instructions, declarations and quoted attribute
    /// values are skipped; malformed text is left to the parser.
    pub depth: Result<(), (u32, String)>,
    /// The line of the first xacro element or `${…}` substitution outside comments.
    pub xacro: Option<u32>,
}

/// The nesting bound and where the first xacro markup is, in one pass over the bytes.
pub fn scan(text: &str) -> Scan {
    let b = text.as_bytes();
    let line_at = |k: usize| {
        u32::try_from(1 + b[..k].iter().filter(|&&c| c == b'\n').count()).unwrap_or(u32::MAX)
    };
    let mut xacro = None;
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
            if rest.starts_with(b"</xacro:") && xacro.is_none() {
                xacro = Some(line_at(i));
            }
            depth = depth.saturating_sub(1);
            i = find(i + 2, b">");
        } else {
            // An opening tag: to its `>` outside quotes; `/>` closes it at once.
            let start = i;
            if rest.starts_with(b"<xacro:") && xacro.is_none() {
                xacro = Some(line_at(i));
            }
            let mut quote = None;
            let mut j = i + 1;
            let mut empty = false;
            while j < b.len() {
                match (quote, b[j]) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), b'$') if b.get(j + 1) == Some(&b'{') && xacro.is_none() => {
                        xacro = Some(line_at(j));
                    }
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
                    return Scan {
                        depth: Err((
                            line_at(start),
                            format!(
                                "the XML nests elements more than {MAX_DEPTH} deep: no robot \
                                 model does, and reading it would overflow the compiler's stack"
                            ),
                        )),
                        xacro,
                    };
                }
            }
            i = j + 1;
        }
    }
    Scan {
        depth: Ok(()),
        xacro,
    }
}
