//! The MuJoCo Menagerie survey (ignored tests; they read files outside the repository).
//!
//! `menagerie_survey` reads every robot file listed in `robots.tsv` (directory, kind, file;
//! `$MENAGERIE_ROBOTS`, default `/work/shared/menagerie/robots.tsv`) from the Menagerie tree in
//! `$MENAGERIE` (default `/tmp/menagerie`, made by `benches/menagerie/setup.sh`) through the
//! MJCF reader, lowers each file the reader accepts (`super::lower`, as `mechanics!` does) and
//! writes `docs/menagerie.md`: per file the outcome (missing, refused, read but not lowered,
//! read and lowered) with the first error and its line, and, where MuJoCo's compiled numbers
//! are at hand (`$MENAGERIE_MUJOCO`, default `/tmp/menagerie_mujoco.json`, written by
//! `benches/menagerie/mujoco_dump.py`), the largest relative differences of the reader's body
//! masses and principal inertias from MuJoCo's, and of the centres of mass. It prints each
//! file's time; `MENAGERIE_LOWER=0` skips the lowering. Run from the repository root:
//!
//! ```text
//! bash benches/menagerie/setup.sh && python3 benches/menagerie/mujoco_dump.py
//! cargo test -p spark-macros --lib menagerie_survey::menagerie_survey -- --ignored --nocapture
//! ```
//!
//! `mjcf_features_compiled_numbers` compares the reader's trees of
//! `tests/models/mjcf_features/*.xml` with MuJoCo's compiled numbers there
//! (`NAME_compiled.csv`): body masses and principal inertias, dof armature and damping,
//! actuator gain, bias and gear. Ignored until the reader reads those files.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use proc_macro2::Span;
use syn::Ident;

use super::kinematics::Layout;
use super::tree::{JointKind, Mechanism, M3};
use super::xml::FileError;

/// Reads one model file through the MJCF reader, as `mechanics!` does (includes and meshes
/// relative to the file).
fn read_file(path: &Path) -> Result<Mechanism, Vec<FileError>> {
    let text = super::xml::read_model_file(path).map_err(|e| {
        vec![FileError {
            line: 0,
            msg: format!("cannot read the file: {e}"),
            file: None,
        }]
    })?;
    super::mjcf::read_file(path, &text).map_err(|e| e.list)
}

/// Lowers a mechanism as `mechanics!` does; the first failures on error.
fn lower(mech: &Mechanism) -> Result<usize, Vec<FileError>> {
    let n = Layout::of(mech).n;
    let ids = |p: &str| -> Vec<Ident> {
        (0..n)
            .map(|k| Ident::new(&format!("{p}__{k}"), Span::call_site()))
            .collect()
    };
    let g = ["gx", "gy", "gz"].map(|s| Ident::new(s, Span::call_site()));
    super::lower(mech, &ids("q"), &ids("v"), &g, Span::call_site()).map(|_| n)
}

/// A JSON value (just what `mujoco_dump.py` writes).
#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn num(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            Json::Num(x) => Some(*x),
            _ => None,
        }
    }
    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn arr(&self, key: &str) -> &[Json] {
        match self.get(key) {
            Some(Json::Arr(a)) => a,
            _ => &[],
        }
    }
    fn nums(&self, key: &str) -> Vec<f64> {
        self.arr(key)
            .iter()
            .filter_map(|x| match x {
                Json::Num(v) => Some(*v),
                _ => None,
            })
            .collect()
    }
}

/// A small recursive-descent JSON parser.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{}` at byte {}", c as char, self.i))
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated escape")?;
                    self.i += 1;
                    match e {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                .map_err(|e| e.to_string())?;
                            let code = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                            out.push(char::from_u32(code).unwrap_or('?'));
                            self.i += 4;
                        }
                        other => out.push(other as char),
                    }
                }
                _ => {
                    // Multi-byte UTF-8: copy the whole character.
                    let start = self.i - 1;
                    let mut end = self.i;
                    while end < self.s.len() && (self.s[end] & 0xC0) == 0x80 {
                        end += 1;
                    }
                    out.push_str(std::str::from_utf8(&self.s[start..end]).unwrap_or("?"));
                    self.i = end;
                }
            }
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i).copied() {
            Some(b'{') => {
                self.i += 1;
                let mut kv = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    let k = self.string()?;
                    self.eat(b':')?;
                    kv.push((k, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return Err(format!("bad object at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(a));
                }
                loop {
                    a.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(a));
                        }
                        _ => return Err(format!("bad array at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(Json::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(Json::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(Json::Null)
            }
            Some(b'N') if self.s[self.i..].starts_with(b"NaN") => {
                self.i += 3;
                Ok(Json::Num(f64::NAN))
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && b"+-0123456789.eEInfinity".contains(&self.s[self.i])
                {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                t.parse::<f64>()
                    .map(Json::Num)
                    .map_err(|_| format!("bad value `{t}` at byte {start}"))
            }
        }
    }
}

fn parse_json(text: &str) -> Result<Json, String> {
    Parser {
        s: text.as_bytes(),
        i: 0,
    }
    .value()
}

/// The eigenvalues of a symmetric 3×3 matrix, ascending (the reader's own Jacobi iteration,
/// accurate to rounding also for repeated eigenvalues, as of axisymmetric bodies).
fn principal(m: &M3) -> [f64; 3] {
    let (mut d, _) = super::mjcf::symmetric_eigen(m);
    d.sort_by(f64::total_cmp);
    d
}

/// MuJoCo's mass properties of one body: mass, principal inertia (ascending) and centre of
/// mass in the body frame.
struct MjBody {
    mass: f64,
    inertia: [f64; 3],
    com: [f64; 3],
}

/// Per file: the largest relative difference of body masses and of principal inertias, the
/// body where it is, and how many MuJoCo bodies the reader's tree lacks.
struct MassCheck {
    mass: (f64, String),
    inertia: (f64, String),
    /// The largest distance of the centres of mass, in metres.
    com: (f64, String),
    unmatched: usize,
    compared: usize,
}

fn compare_masses(mech: &Mechanism, mj: &HashMap<String, MjBody>, skip: &[String]) -> MassCheck {
    let total: f64 = mj.values().map(|b| b.mass).sum();
    let mut out = MassCheck {
        mass: (0.0, String::new()),
        inertia: (0.0, String::new()),
        com: (0.0, String::new()),
        unmatched: 0,
        compared: 0,
    };
    let ours: HashMap<&str, _> = mech.bodies.iter().map(|b| (b.name.as_str(), b)).collect();
    for (name, b) in mj {
        if name == "world" || skip.contains(name) {
            continue;
        }
        let Some(r) = ours.get(name.as_str()) else {
            out.unmatched += 1;
            continue;
        };
        out.compared += 1;
        // Relative to the body's own mass, or to a millionth of the robot's for tiny bodies.
        let dm = (r.mass - b.mass).abs() / b.mass.max(1e-6 * total).max(1e-300);
        if dm > out.mass.0 {
            out.mass = (dm, name.clone());
        }
        let e = principal(&r.inertia);
        let scale = b.inertia[2].max(1e-12);
        let di = (0..3)
            .map(|k| (e[k] - b.inertia[k]).abs() / scale)
            .fold(0.0, f64::max);
        if di > out.inertia.0 {
            out.inertia = (di, name.clone());
        }
        if b.mass > 0.0 {
            let dc = (0..3)
                .map(|k| (r.com[k] - b.com[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            if dc > out.com.0 {
                out.com = (dc, name.clone());
            }
        }
    }
    out
}

fn env_path(key: &str, default: &str) -> PathBuf {
    std::env::var_os(key).map_or_else(|| PathBuf::from(default), PathBuf::from)
}

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Text for a Markdown table cell: `|` escaped, `<` as an entity (not a tag), one line.
fn markdown(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('\n', " ")
}

/// One line of an error for a table cell.
fn cell(e: &FileError) -> String {
    let msg: String = markdown(&e.msg).chars().take(160).collect();
    if e.line > 0 {
        format!("line {}: {msg}", e.line)
    } else {
        msg
    }
}

/// An error message with what differs between files blanked: names in backticks or quotes,
/// and numbers (a `.` right after a number counts as its own).
fn kind_of(msg: &str) -> String {
    let mut out = String::new();
    let mut quoted: Option<char> = None;
    let mut last_blank = false;
    for c in msg.chars() {
        match quoted {
            Some(q) if c == q => {
                quoted = None;
                out.push(c);
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                quoted = Some(c);
                out.push(c);
                out.push('…');
            }
            None if c.is_ascii_digit() || (c == '.' && last_blank) => {
                if !last_blank {
                    out.push('…');
                }
                last_blank = true;
                continue;
            }
            None => out.push(c),
        }
        last_blank = false;
    }
    out
}

#[test]
#[ignore = "reads the Menagerie from $MENAGERIE; writes docs/menagerie.md"]
fn menagerie_survey() {
    let root = env_path("MENAGERIE", "/tmp/menagerie");
    let robots = env_path("MENAGERIE_ROBOTS", "/work/shared/menagerie/robots.tsv");
    let dump = env_path("MENAGERIE_MUJOCO", "/tmp/menagerie_mujoco.json");
    // MENAGERIE_LOWER=0: read only (lowering a large robot builds its whole symbolic model).
    let lower_all = std::env::var("MENAGERIE_LOWER").map_or(true, |v| v != "0");
    let list = std::fs::read_to_string(&robots)
        .unwrap_or_else(|e| panic!("{}: {e} (set MENAGERIE_ROBOTS)", robots.display()));
    let mujoco = std::fs::read_to_string(&dump)
        .ok()
        .map(|t| parse_json(&t).unwrap_or_else(|e| panic!("{}: {e}", dump.display())));
    let mj_version = mujoco
        .as_ref()
        .and_then(|j| j.str("mujoco").map(str::to_string));
    let mj_robot = |dir: &str, file: &str| -> Option<&Json> {
        mujoco.as_ref()?.arr("robots").iter().find(|r| {
            r.str("dir") == Some(dir)
                && r.str("file") == Some(file)
                && matches!(r.get("ok"), Some(Json::Bool(true)))
        })
    };
    let mut table = String::new();
    // Every distinct error kind (names and numbers blanked) → the files that have it.
    let mut kinds: HashMap<String, Vec<String>> = HashMap::new();
    let (mut count, mut missing, mut refused, mut unlowered, mut lowered) = (0, 0, 0, 0, 0);
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (dir, kind, file) = (cols[0], cols[1], cols[2]);
        count += 1;
        let path = root.join(dir).join(file);
        let started = Instant::now();
        let (outcome, first, masses) = if !path.exists() {
            missing += 1;
            (
                "missing".to_string(),
                "not in the snapshot".to_string(),
                None,
            )
        } else {
            match read_file(&path) {
                Err(errors) => {
                    refused += 1;
                    for e in &errors {
                        let files = kinds.entry(kind_of(&e.msg)).or_default();
                        if files.last().map(String::as_str) != Some(file) {
                            files.push(file.to_string());
                        }
                    }
                    let first = errors.first().map(cell).unwrap_or_default();
                    (format!("refused ({} errors)", errors.len()), first, None)
                }
                Ok(mech) => {
                    let masses = mj_robot(dir, file).map(|r| {
                        let bodies: HashMap<String, MjBody> = r
                            .arr("bodies")
                            .iter()
                            .map(|b| {
                                let i = b.nums("inertia");
                                let mut inertia = [i[0], i[1], i[2]];
                                inertia.sort_by(|a, b| a.total_cmp(b));
                                let c = b.nums("ipos");
                                (
                                    b.str("name").unwrap_or("").to_string(),
                                    MjBody {
                                        mass: b.num("mass").unwrap_or(0.0),
                                        inertia,
                                        com: [c[0], c[1], c[2]],
                                    },
                                )
                            })
                            .collect();
                        let skip: Vec<String> = r
                            .arr("unreliable_bodies")
                            .iter()
                            .filter_map(|x| match x {
                                Json::Str(s) => Some(s.clone()),
                                _ => None,
                            })
                            .collect();
                        let nq = r.num("nq").unwrap_or(f64::NAN);
                        (compare_masses(&mech, &bodies, &skip), nq)
                    });
                    match if lower_all { lower(&mech) } else { Ok(0) } {
                        Ok(_) if !lower_all => {
                            unlowered += 1;
                            ("read (lowering skipped)".to_string(), String::new(), masses)
                        }
                        Ok(n) => {
                            lowered += 1;
                            let nq = masses.as_ref().map_or(String::new(), |m| {
                                if (m.1 - n as f64).abs() > 0.5 {
                                    format!(" (MuJoCo's nq is {})", m.1)
                                } else {
                                    String::new()
                                }
                            });
                            (
                                format!("read, lowered: {n} coordinates{nq}"),
                                String::new(),
                                masses,
                            )
                        }
                        Err(f) => {
                            unlowered += 1;
                            let first = f.first().map(cell).unwrap_or_default();
                            ("read, not lowered".to_string(), first, masses)
                        }
                    }
                }
            }
        };
        let dc = masses.as_ref().map_or(String::new(), |(m, _)| {
            format!("{:.1e} ({})", m.com.0, m.com.1)
        });
        let (dm, di) = match &masses {
            Some((m, _)) => (
                format!(
                    "{:.1e} ({}){}",
                    m.mass.0,
                    m.mass.1,
                    if m.unmatched > 0 {
                        format!(", {} of MuJoCo's bodies not in the tree", m.unmatched)
                    } else {
                        String::new()
                    }
                ),
                format!("{:.1e} ({})", m.inertia.0, m.inertia.1),
            ),
            None => (String::new(), String::new()),
        };
        let secs = started.elapsed().as_secs_f64();
        eprintln!("{dir}/{file}: {outcome} {first} [{secs:.1} s]");
        let _ = writeln!(
            table,
            "| {dir} | {kind} | {file} | {outcome} | {first} | {dm} | {di} | {dc} |"
        );
    }
    let mut doc = String::new();
    let _ = writeln!(doc, "# The MuJoCo Menagerie through the MJCF reader\n");
    let _ = writeln!(
        doc,
        "Written by the ignored test `menagerie_survey` \
         (`spark-macros/src/mechanism/menagerie_survey.rs`); regenerate with\n\n```text\n\
         bash benches/menagerie/setup.sh && python3 benches/menagerie/mujoco_dump.py\n\
         cargo test -p spark-macros --lib menagerie_survey::menagerie_survey -- --ignored --nocapture\n```\n"
    );
    let _ = writeln!(
        doc,
        "{count} robot files (`robots.tsv`): {lowered} read and lowered, {unlowered} read but not \
         lowered, {refused} refused, {missing} missing from the snapshot.\n"
    );
    let _ = writeln!(
        doc,
        "Outcome: *refused* is the reader's first error (its line in the file); *read, not \
         lowered* the first failure of the lowering's checks. Mass and inertia: the largest \
         relative difference over the bodies (matched by name) of the reader's body mass and \
         principal moments of inertia from MuJoCo's compiled `body_mass` and `body_inertia` \
         (MuJoCo {}; bodies whose mass came from a mesh absent from the snapshot are left out), \
         and the largest distance of the centres of mass from MuJoCo's `body_ipos`, each with \
         the body where it is; empty where the reader refused the file.\n",
        mj_version.as_deref().unwrap_or("numbers not found")
    );
    let _ = writeln!(
        doc,
        "| directory | kind | file | outcome | first error | mass | inertia | com (m) |\n\
         |---|---|---|---|---|---|---|---|"
    );
    doc.push_str(&table);
    let mut kinds: Vec<(String, Vec<String>)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        doc,
        "\n## What the reader refuses, by kind\n\nEvery error of the refused files, names and \
         numbers blanked (`…`), with the number of files that have it.\n\n| files | error |\n|---|---|"
    );
    for (k, files) in &kinds {
        let _ = writeln!(doc, "| {} | {} |", files.len(), markdown(k));
    }
    let out = repository_root().join("docs/menagerie.md");
    // The sections written by hand (measurements of other tools) follow this one's, from
    // `## Accelerations`, and are kept.
    if let Ok(old) = std::fs::read_to_string(&out) {
        if let Some(at) = old.find("\n## Accelerations") {
            doc.push_str(&old[at..]);
        }
    }
    std::fs::write(&out, doc).unwrap();
    eprintln!(
        "{count} files: {lowered} lowered, {unlowered} read not lowered, {refused} refused, \
         {missing} missing; wrote {}",
        out.display()
    );
}

/// `field,name,values` lines of a `NAME_compiled.csv`.
fn compiled(text: &str) -> Vec<(String, String, Vec<f64>)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut cells = l.split(',');
            let field = cells.next().unwrap().to_string();
            let name = cells.next().unwrap().to_string();
            (field, name, cells.map(|c| c.parse().unwrap()).collect())
        })
        .collect()
}

#[test]
fn mjcf_features_compiled_numbers() {
    let dir = repository_root().join("tests/models/mjcf_features");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0);
    let mut failures = Vec::new();
    for name in [
        "defaults",
        "include_frames",
        "actuators",
        "equality_tendons",
        "misc",
    ] {
        let mech = match read_file(&dir.join(format!("{name}.xml"))) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: refused: {}", cell(&e[0])));
                continue;
            }
        };
        let text = std::fs::read_to_string(dir.join(format!("{name}_compiled.csv"))).unwrap();
        let mut fail = |what: String| failures.push(format!("{name}: {what}"));
        for (field, key, v) in compiled(&text) {
            let body = mech.bodies.iter().find(|b| b.name == key);
            let joint = mech
                .bodies
                .iter()
                .flat_map(|b| &b.joints)
                .find(|j| j.name == key);
            let act = mech.actuators.iter().find(|a| a.name == key);
            match field.as_str() {
                "body_mass" if key != "world" => match body {
                    Some(b) if close(b.mass, v[0]) => {}
                    Some(b) => fail(format!("body `{key}` mass {} against {}", b.mass, v[0])),
                    None => fail(format!("no body `{key}`")),
                },
                "body_inertia" if key != "world" => {
                    if let Some(b) = body {
                        let mut want = [v[0], v[1], v[2]];
                        want.sort_by(|a, b| a.total_cmp(b));
                        let got = principal(&b.inertia);
                        if (0..3).any(|k| (got[k] - want[k]).abs() > 1e-10 * want[2].max(1e-12)) {
                            fail(format!("body `{key}` inertia {got:?} against {want:?}"));
                        }
                    }
                }
                "body_ipos" if key != "world" => {
                    if let Some(b) = body {
                        if b.mass > 0.0 && (0..3).any(|k| (b.com[k] - v[k]).abs() > 1e-12) {
                            fail(format!("body `{key}` com {:?} against {v:?}", b.com));
                        }
                    }
                }
                "dof_armature" | "dof_damping" => match joint {
                    Some(j) => {
                        let got = if field == "dof_armature" {
                            j.armature
                        } else {
                            j.damping
                        };
                        if !close(got, v[0]) {
                            fail(format!("joint `{key}` {field} {got} against {}", v[0]));
                        }
                    }
                    None => fail(format!("no joint `{key}`")),
                },
                "jnt_stiffness" => {
                    if let Some(j) = joint {
                        if matches!(j.kind, JointKind::Hinge | JointKind::Slide)
                            && !close(j.stiffness, v[0])
                        {
                            fail(format!(
                                "joint `{key}` stiffness {} against {}",
                                j.stiffness, v[0]
                            ));
                        }
                    }
                }
                "qpos_spring" => {
                    if let Some(j) = joint {
                        if matches!(j.kind, JointKind::Hinge | JointKind::Slide)
                            && !close(j.springref, v[0])
                        {
                            fail(format!(
                                "joint `{key}` springref {} against {}",
                                j.springref, v[0]
                            ));
                        }
                    }
                }
                "actuator_gainprm" | "actuator_biasprm" | "actuator_gear" => match act {
                    // The tree's gain is one number: gainprm[0] (an affine gain's other two
                    // terms need a field of their own).
                    Some(a) => {
                        let (got, want): (Vec<f64>, Vec<f64>) = match field.as_str() {
                            "actuator_gainprm" => (vec![a.gain], vec![v[0]]),
                            "actuator_biasprm" => (a.bias.to_vec(), v.clone()),
                            _ => (vec![a.gear], vec![v[0]]),
                        };
                        if got.iter().zip(&want).any(|(g, w)| !close(*g, *w)) {
                            fail(format!("actuator `{key}` {field} {got:?} against {want:?}"));
                        }
                    }
                    None => fail(format!("no actuator `{key}`")),
                },
                // Equalities and tendons: their representation in the tree is the reader's
                // choice; `eq_data`, `tendon_*` are in the CSV for its own checks.
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reader's mass properties of `tests/models/mjcf_zoo.xml` against MuJoCo 4.0.0's
/// compiled `body_mass` and `body_inertia`, through the survey's comparison.
#[test]
fn zoo_masses_equal_mujoco() {
    let mech = read_file(&repository_root().join("tests/models/mjcf_zoo.xml")).unwrap();
    // MuJoCo 4.0.0: body, [mass, principal inertia (3), centre of mass (3)].
    let zoo: [(&str, [f64; 7]); 5] = [
        (
            "a",
            [
                2.868479800571441,
                0.05336497953741313,
                0.05336497953741312,
                0.0035937779484438714,
                0.21010521837896903,
                0.07003507279298968,
                -0.14007014558597936,
            ],
        ),
        (
            "b",
            [
                2.104466651587331,
                0.015189552376780114,
                0.01281299937313549,
                0.0033196935885861987,
                0.004751797797535697,
                0.060084898500700146,
                0.030042449250350073,
            ],
        ),
        (
            "c",
            [
                0.7,
                0.04096368079564719,
                0.029401629429908364,
                0.019634689774444485,
                0.02,
                0.03,
                0.1,
            ],
        ),
        (
            "d",
            [
                1.3404128655316454,
                0.004396554198943798,
                0.0033510321638291147,
                0.0023859349006463294,
                0.0,
                0.0,
                0.0,
            ],
        ),
        ("floating", [2.0, 0.1, 0.2, 0.3, 0.1, 0.0, 0.0]),
    ];
    let mujoco: HashMap<String, MjBody> = zoo
        .into_iter()
        .map(|(n, x)| {
            let mut inertia = [x[1], x[2], x[3]];
            inertia.sort_by(|a, b| a.total_cmp(b));
            let body = MjBody {
                mass: x[0],
                inertia,
                com: [x[4], x[5], x[6]],
            };
            (n.to_string(), body)
        })
        .collect();
    let check = compare_masses(&mech, &mujoco, &[]);
    assert_eq!((check.compared, check.unmatched), (5, 0));
    assert!(
        check.mass.0 < 1e-12,
        "mass {:e} at {}",
        check.mass.0,
        check.mass.1
    );
    assert!(
        check.inertia.0 < 1e-9,
        "inertia {:e} at {}",
        check.inertia.0,
        check.inertia.1
    );
    assert_eq!(
        kind_of("joint `h1`: type \"x\" at 12.5 m"),
        "joint `…`: type \"…\" at … m"
    );
}

#[test]
fn principal_moments_of_a_rotated_inertia() {
    // diag(1, 2, 3) rotated about z by 30 degrees, then about x by 40 degrees.
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    let (c2, s2) = (40f64.to_radians().cos(), 40f64.to_radians().sin());
    let rz = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
    let rx = [[1.0, 0.0, 0.0], [0.0, c2, -s2], [0.0, s2, c2]];
    let r = super::tree::mul(&rx, &rz);
    let i = super::tree::rotate_inertia(&r, &super::tree::diag([1.0, 2.0, 3.0]));
    let e = principal(&i);
    for (k, want) in [1.0, 2.0, 3.0].iter().enumerate() {
        assert!((e[k] - want).abs() < 1e-14, "{e:?}");
    }
    // A repeated eigenvalue (an axisymmetric body): exact to rounding.
    let i = super::tree::rotate_inertia(&r, &super::tree::diag([0.5, 2.0, 2.0]));
    let e = principal(&i);
    for (k, want) in [0.5, 2.0, 2.0].iter().enumerate() {
        assert!((e[k] - want).abs() < 1e-14, "{e:?}");
    }
    let j = parse_json(r#"{"a": [1, -2.5e-3, "x\u00e9"], "b": {"c": true, "d": null}}"#).unwrap();
    assert_eq!(j.nums("a"), [1.0, -2.5e-3]);
    assert!(matches!(
        j.get("b").and_then(|b| b.get("c")),
        Some(Json::Bool(true))
    ));
}

/// Every error of the files named in `$MENAGERIE_FILES` (paths under `$MENAGERIE`, separated by
/// commas), read and lowered: what stands between a refused file and its loading.
#[test]
#[ignore = "reads files of the Menagerie from $MENAGERIE"]
fn menagerie_errors() {
    let root = env_path("MENAGERIE", "/tmp/menagerie");
    let files = std::env::var("MENAGERIE_FILES").unwrap_or_default();
    for f in files.split(',').filter(|f| !f.is_empty()) {
        println!("== {f}");
        match read_file(&root.join(f)).and_then(|m| lower(&m)) {
            Ok(n) => println!("lowered: {n} coordinates"),
            Err(errors) => {
                for e in errors {
                    println!("line {}: {}", e.line, e.msg);
                }
            }
        }
    }
}
