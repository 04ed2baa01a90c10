//! Reader of the reference data in `tests/data/` (written by the scripts in
//! `benches/reference/`; the format is described in `tests/data/README.md`): `# key: value`
//! lines, one line of column names, then one line of comma-separated values per row. Plain
//! `std`, no Python.

use std::path::PathBuf;

/// One data file: its metadata, its column names and its rows (as text; read numbers with
/// [`Table::f64`] or [`Table::vector`]).
#[derive(Clone, Debug)]
pub struct Table {
    /// The path it was read from.
    pub path: PathBuf,
    /// The `# key: value` lines, in order.
    pub meta: Vec<(String, String)>,
    /// The column names.
    pub columns: Vec<String>,
    /// The rows, one entry per column.
    pub rows: Vec<Vec<String>>,
}

/// The path of `name` in `tests/data/` of the root crate.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

impl Table {
    /// Reads `tests/data/<name>`; an error names the file and line of anything malformed (a
    /// row whose length differs from the header's, a line before the header that is not
    /// `# key: value`, a missing header).
    pub fn read(name: &str) -> Result<Table, String> {
        let path = data_path(name);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text)
            .map_err(|e| format!("{}: {e}", path.display()))
            .map(|mut t| {
                t.path = path;
                t
            })
    }

    /// Parses the text of a data file (see [`Table::read`]).
    pub fn parse(text: &str) -> Result<Table, String> {
        let mut meta = Vec::new();
        let mut columns: Option<Vec<String>> = None;
        let mut rows = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix('#') {
                if columns.is_some() {
                    return Err(format!("line {line_no}: a comment after the column names"));
                }
                let (key, value) = rest
                    .split_once(':')
                    .ok_or_else(|| format!("line {line_no}: not `# key: value`"))?;
                meta.push((key.trim().to_string(), value.trim().to_string()));
                continue;
            }
            let cells: Vec<String> = line.split(',').map(|c| c.trim().to_string()).collect();
            match &columns {
                None => columns = Some(cells),
                Some(cols) => {
                    if cells.len() != cols.len() {
                        return Err(format!(
                            "line {line_no}: {} values for {} columns",
                            cells.len(),
                            cols.len()
                        ));
                    }
                    rows.push(cells);
                }
            }
        }
        let columns = columns.ok_or("no column names")?;
        Ok(Table {
            path: PathBuf::new(),
            meta,
            columns,
            rows,
        })
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The value of the metadata `key` (panics, naming the file, when absent).
    pub fn meta(&self, key: &str) -> &str {
        self.meta
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{}: no `# {key}:` line", self.path.display()))
    }

    /// The metadata `key` as a number.
    pub fn meta_f64(&self, key: &str) -> f64 {
        let v = self.meta(key);
        v.parse()
            .unwrap_or_else(|_| panic!("{}: `{key}: {v}` is not a number", self.path.display()))
    }

    /// The metadata `key` as whitespace-separated words (joint, body or actuator names).
    pub fn meta_words(&self, key: &str) -> Vec<&str> {
        self.meta(key).split_whitespace().collect()
    }

    /// The metadata `key` as whitespace-separated numbers (gravity, gears).
    pub fn meta_numbers(&self, key: &str) -> Vec<f64> {
        self.meta_words(key)
            .iter()
            .map(|w| {
                w.parse().unwrap_or_else(|_| {
                    panic!("{}: `{key}` holds `{w}`, not a number", self.path.display())
                })
            })
            .collect()
    }

    /// The metadata keys that start with `residual_` and their values: the self-consistency
    /// checks the script ran (each value a number, the worst over the file).
    pub fn residuals(&self) -> Vec<(&str, f64)> {
        self.meta
            .iter()
            .filter(|(k, _)| k.starts_with("residual_"))
            .map(|(k, v)| {
                let x = v.parse().unwrap_or_else(|_| {
                    panic!("{}: `{k}: {v}` is not a number", self.path.display())
                });
                (k.as_str(), x)
            })
            .collect()
    }

    /// The index of the column `name` (panics, naming the file, when absent).
    pub fn column(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{}: no column `{name}`", self.path.display()))
    }

    /// How many columns are named `prefix0`, `prefix1`, … in a row.
    pub fn count(&self, prefix: &str) -> usize {
        (0..)
            .take_while(|i| self.columns.iter().any(|c| *c == format!("{prefix}{i}")))
            .count()
    }

    /// The text in column `name` of `row`.
    pub fn text(&self, row: usize, name: &str) -> &str {
        &self.rows[row][self.column(name)]
    }

    /// The number in column `name` of `row`.
    pub fn f64(&self, row: usize, name: &str) -> f64 {
        let cell = self.text(row, name);
        cell.parse().unwrap_or_else(|_| {
            panic!(
                "{}: row {row}, column {name}: `{cell}` is not a number",
                self.path.display()
            )
        })
    }

    /// The columns `prefix0 … prefix{N-1}` of `row`.
    pub fn vector<const N: usize>(&self, row: usize, prefix: &str) -> [f64; N] {
        core::array::from_fn(|i| self.f64(row, &format!("{prefix}{i}")))
    }
}

/// One state of a dynamics file (`*_dynamics.csv`): coordinates, velocities, inputs (`tau` of
/// the URDF files, `ctrl` of the MJCF files), the reference accelerations and energies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample<const N: usize, const U: usize> {
    /// Coordinates (Pinocchio's `q`, MuJoCo's `qpos`).
    pub q: [f64; N],
    /// Velocities.
    pub v: [f64; N],
    /// Inputs: joint torques `tau` (URDF files) or actuator controls `ctrl` (MJCF files).
    pub u: [f64; U],
    /// The reference accelerations.
    pub a: [f64; N],
    /// Kinetic energy.
    pub kinetic: f64,
    /// Potential energy (up to a constant; see the file's `energies` line).
    pub potential: f64,
}

/// The states of a dynamics file with `N` coordinates and `U` inputs in the columns
/// `input0 …` (`"tau"` or `"ctrl"`); panics when the file's sizes differ.
pub fn samples<const N: usize, const U: usize>(table: &Table, input: &str) -> Vec<Sample<N, U>> {
    assert_eq!(table.count("q"), N, "{}: coordinates", table.path.display());
    assert_eq!(table.count(input), U, "{}: inputs", table.path.display());
    (0..table.len())
        .map(|r| Sample {
            q: table.vector(r, "q"),
            v: table.vector(r, "v"),
            u: table.vector(r, input),
            a: table.vector(r, "a"),
            kinetic: table.f64(r, "kinetic"),
            potential: table.f64(r, "potential"),
        })
        .collect()
}

/// The pose of one body (link) at one state of a poses file (`*_poses.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// The row of the state in the matching dynamics file.
    pub state: usize,
    /// The body's (link's) name as written in the model file.
    pub body: String,
    /// The body frame's origin in the world.
    pub position: [f64; 3],
    /// The rotation from the body frame to the world: `rotation[i][j]`, row `i`, column `j`.
    pub rotation: [[f64; 3]; 3],
}

/// The poses of a poses file, in file order (state by state, bodies in the order of the file's
/// `body_names`).
pub fn poses(table: &Table) -> Vec<Pose> {
    (0..table.len())
        .map(|r| {
            let state = table.text(r, "state");
            Pose {
                state: state.parse().unwrap_or_else(|_| {
                    panic!("{}: row {r}: state `{state}`", table.path.display())
                }),
                body: table.text(r, "body_name").to_string(),
                position: [table.f64(r, "px"), table.f64(r, "py"), table.f64(r, "pz")],
                rotation: core::array::from_fn(|i| {
                    core::array::from_fn(|j| table.f64(r, &format!("r{i}{j}")))
                }),
            }
        })
        .collect()
}

impl Pose {
    /// The world position of the point `local` given in the body's frame.
    pub fn point(&self, local: [f64; 3]) -> [f64; 3] {
        core::array::from_fn(|i| {
            self.position[i] + (0..3).map(|j| self.rotation[i][j] * local[j]).sum::<f64>()
        })
    }
}

/// `max_i |got_i − want_i| / max_i |want_i|` (the absolute error when `want` is zero): the
/// relative error of a vector against a reference.
pub fn relative_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let err = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (g, w)| m.max((g - w).abs()));
    let scale = want.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    if scale > 0.0 {
        err / scale
    } else {
        err
    }
}
