//! Reading the reference data of `tests/models/mjcf_features/reference.py` and comparing a
//! model's `Integrator::acceleration` with MuJoCo's `qacc`, state by state.
//!
//! A CSV has four header lines (`# nq=.. nv=.. nu=..; ...`, `# qpos0 ...`, `# ctrl NAME...`,
//! `# joints NAME:KIND...`) and rows `qpos, qvel, ctrl, qacc` in MuJoCo's conventions. The
//! conversion to spark's coordinates: a hinge or slide is one coordinate as it is; a ball joint
//! is a unit quaternion `q` (w first) whose velocity is `q̇ = ½ q ⊗ (0, ω)` for MuJoCo's body
//! angular velocity `ω`, and whose acceleration is `q̈ = ½ (q̇ ⊗ (0, ω) + q ⊗ (0, ω̇))`; a
//! free joint is the world position (its velocity and acceleration are MuJoCo's first three
//! dofs, world linear velocity and its rate) followed by a quaternion as the ball joint's.

use spark::nalgebra::SVector;
use spark::{Dimensions, GaussLobatto, Integrator, State};

/// What a joint of the file is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// One angle.
    Hinge,
    /// One length.
    Slide,
    /// A quaternion: 4 coordinates, 3 dofs.
    Ball,
    /// A position and a quaternion: 7 coordinates, 6 dofs.
    Free,
}

/// One reference file.
pub struct Reference {
    /// MuJoCo's sizes.
    pub nq: usize,
    /// See [`Reference::nq`].
    pub nv: usize,
    /// See [`Reference::nq`].
    pub nu: usize,
    /// MuJoCo's `qpos0`.
    pub qpos0: Vec<f64>,
    /// The actuators' names, in MuJoCo's order (the `ctrl` columns).
    pub ctrl: Vec<String>,
    /// MuJoCo's joints in qpos order.
    pub joints: Vec<(String, Kind)>,
    /// The rows: qpos, qvel, ctrl, qacc.
    pub rows: Vec<Vec<f64>>,
}

fn header<'a>(line: Option<&'a str>, key: &str) -> &'a str {
    let line = line.unwrap_or_else(|| panic!("the reference has no `# {key}` line"));
    line.strip_prefix(&format!("# {key}"))
        .unwrap_or_else(|| panic!("expected `# {key}`, found `{line}`"))
        .trim()
}

impl Reference {
    /// Parses a CSV written by `reference.py`.
    pub fn parse(text: &str) -> Self {
        let mut lines = text.lines();
        let sizes = header(lines.next(), "");
        let size = |key: &str| -> usize {
            let at = sizes.find(&format!("{key}=")).expect("a size") + key.len() + 1;
            sizes[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let (nq, nv, nu) = (size("nq"), size("nv"), size("nu"));
        let qpos0 = header(lines.next(), "qpos0")
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        let ctrl = header(lines.next(), "ctrl")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let joints = header(lines.next(), "joints")
            .split_whitespace()
            .map(|w| {
                let (name, kind) = w.rsplit_once(':').expect("NAME:KIND");
                let kind = match kind {
                    "hinge" => Kind::Hinge,
                    "slide" => Kind::Slide,
                    "ball" => Kind::Ball,
                    "free" => Kind::Free,
                    other => panic!("joint kind `{other}`"),
                };
                (name.to_string(), kind)
            })
            .collect();
        let rows: Vec<Vec<f64>> = lines
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect();
        for r in &rows {
            assert_eq!(r.len(), nq + 2 * nv + nu, "a row's length");
        }
        Self {
            nq,
            nv,
            nu,
            qpos0,
            ctrl,
            joints,
            rows,
        }
    }

    /// spark's `COORDINATE_NAMES` for these joints (as `mechanism/mod.rs` names them).
    pub fn coordinate_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (n, kind) in &self.joints {
            let suffixes: &[&str] = match kind {
                Kind::Hinge | Kind::Slide => &[],
                Kind::Ball => &["qw", "qx", "qy", "qz"],
                Kind::Free => &["x", "y", "z", "qw", "qx", "qy", "qz"],
            };
            if suffixes.is_empty() {
                out.push(n.clone());
            }
            out.extend(suffixes.iter().map(|s| format!("{n}.{s}")));
        }
        out
    }

    /// Row `k` split: qpos, qvel, ctrl, qacc.
    pub fn row(&self, k: usize) -> (&[f64], &[f64], &[f64], &[f64]) {
        let r = &self.rows[k];
        let (qpos, rest) = r.split_at(self.nq);
        let (qvel, rest) = rest.split_at(self.nv);
        let (ctrl, qacc) = rest.split_at(self.nu);
        (qpos, qvel, ctrl, qacc)
    }

    /// spark's `(q, v, q̈)` from MuJoCo's `(qpos, qvel, qacc)`.
    pub fn to_spark(
        &self,
        qpos: &[f64],
        qvel: &[f64],
        qacc: &[f64],
    ) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let (mut q, mut v, mut a) = (Vec::new(), Vec::new(), Vec::new());
        let (mut i, mut k) = (0, 0);
        let quaternion =
            |i: usize, k: usize, q: &mut Vec<f64>, v: &mut Vec<f64>, a: &mut Vec<f64>| {
                let quat = [qpos[i], qpos[i + 1], qpos[i + 2], qpos[i + 3]];
                let w = [0.0, qvel[k], qvel[k + 1], qvel[k + 2]];
                let wd = [0.0, qacc[k], qacc[k + 1], qacc[k + 2]];
                let rate = half(quat_mul(quat, w));
                let second = half(add4(quat_mul(rate, w), quat_mul(quat, wd)));
                q.extend(quat);
                v.extend(rate);
                a.extend(second);
            };
        for (_, kind) in &self.joints {
            match kind {
                Kind::Hinge | Kind::Slide => {
                    q.push(qpos[i]);
                    v.push(qvel[k]);
                    a.push(qacc[k]);
                    i += 1;
                    k += 1;
                }
                Kind::Ball => {
                    quaternion(i, k, &mut q, &mut v, &mut a);
                    i += 4;
                    k += 3;
                }
                Kind::Free => {
                    q.extend_from_slice(&qpos[i..i + 3]);
                    v.extend_from_slice(&qvel[k..k + 3]);
                    a.extend_from_slice(&qacc[k..k + 3]);
                    quaternion(i + 3, k + 3, &mut q, &mut v, &mut a);
                    i += 7;
                    k += 6;
                }
            }
        }
        assert_eq!(
            (i, k),
            (self.nq, self.nv),
            "the joints do not cover qpos and qvel"
        );
        (q, v, a)
    }
}

/// The quaternion product `a ⊗ b` (w first).
pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

fn half(x: [f64; 4]) -> [f64; 4] {
    x.map(|c| 0.5 * c)
}

fn add4(x: [f64; 4], y: [f64; 4]) -> [f64; 4] {
    [x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]]
}

/// `max_i |got_i − want_i| / max_i |want_i|`.
pub fn relative_error(got: &[f64], want: &[f64]) -> f64 {
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

/// What a model shows of itself: its `COORDINATE_NAMES`, `INPUT_NAMES` and
/// `REFERENCE_CONFIGURATION` (inherent constants, so passed in).
pub struct Shown<'a> {
    /// `COORDINATE_NAMES`.
    pub coordinates: &'a [&'a str],
    /// `INPUT_NAMES`.
    pub inputs: &'a [&'a str],
    /// `REFERENCE_CONFIGURATION`.
    pub reference: &'a [f64],
}

/// A name as `mechanics!` makes an identifier of it (`mechanism::identifier`): characters
/// other than ASCII letters, digits and `_` become `_`, a leading digit gets `u_`.
pub fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert_str(0, "u_");
    }
    s
}

/// The outcome of [`measure`]: the largest relative error of the accelerations, its row, and
/// spark's and MuJoCo's accelerations there.
pub struct Measured {
    /// `max_i |got_i − want_i| / max_i |want_i|`, the largest over the rows.
    pub worst: f64,
    /// The row where it is.
    pub row: usize,
    /// spark's accelerations at that row.
    pub got: Vec<f64>,
    /// MuJoCo's (in spark's coordinates).
    pub want: Vec<f64>,
    /// The number of rows.
    pub rows: usize,
}

/// Checks the names and the reference configuration against the file, then, per row, sets
/// the inputs from MuJoCo's `ctrl` (by actuator name) and compares `acceleration` with
/// MuJoCo's `qacc` (converted to spark's coordinates). An error names what does not match
/// (coordinates, reference configuration, inputs, an `acceleration` error).
pub fn measure<
    Sys,
    const N: usize,
    const M: usize,
    const U: usize,
    const D: usize,
    const X: usize,
>(
    sys: Sys,
    shown: &Shown,
    text: &str,
) -> Result<Measured, String>
where
    Sys: Dimensions<N, M, 0, U, D, X>,
{
    let r = Reference::parse(text);
    let names = r.coordinate_names();
    if names != shown.coordinates {
        return Err(format!(
            "coordinates: spark's {:?}, MuJoCo's {names:?}",
            shown.coordinates
        ));
    }
    if shown.reference.len() != r.nq {
        return Err(format!(
            "{} coordinates, MuJoCo's nq {}",
            shown.reference.len(),
            r.nq
        ));
    }
    for (k, (a, b)) in shown.reference.iter().zip(&r.qpos0).enumerate() {
        if (a - b).abs() > 1e-14 {
            return Err(format!(
                "REFERENCE_CONFIGURATION[{k}] ({}) is {a}, MuJoCo's qpos0 {b}",
                names[k]
            ));
        }
    }
    // Each MuJoCo ctrl column goes to the input named after its actuator.
    let mut slot = Vec::new();
    for n in &r.ctrl {
        let id = identifier(n);
        match shown.inputs.iter().position(|i| *i == id) {
            Some(s) => slot.push(s),
            None => return Err(format!("no input named `{id}` in {:?}", shown.inputs)),
        }
    }
    if U != r.nu {
        return Err(format!("{U} inputs, MuJoCo's nu {}", r.nu));
    }
    let mut sim =
        Integrator::<Sys, GaussLobatto<2>>::new(sys, 0.01).map_err(|e| format!("{e:?}"))?;
    let mut out = Measured {
        worst: 0.0,
        row: 0,
        got: Vec::new(),
        want: Vec::new(),
        rows: r.rows.len(),
    };
    for k in 0..r.rows.len() {
        let (qpos, qvel, ctrl, qacc) = r.row(k);
        let mut u = SVector::<f64, U>::zeros();
        for (c, s) in ctrl.iter().zip(&slot) {
            u[*s] = *c;
        }
        Dimensions::<N, M, 0, U, D, X>::set_inputs(sim.system_mut(), &u);
        let (q, v, want) = r.to_spark(qpos, qvel, qacc);
        let state = State::new(
            0.0,
            SVector::<f64, N>::from_column_slice(&q),
            SVector::<f64, N>::from_column_slice(&v),
        );
        let got = sim
            .acceleration(&state)
            .map_err(|e| format!("row {k}: acceleration: {e:?}"))?;
        let err = relative_error(got.as_slice(), &want);
        if k == 0 || err > out.worst {
            out = Measured {
                worst: err,
                row: k,
                got: got.as_slice().to_vec(),
                want,
                rows: r.rows.len(),
            };
        }
    }
    Ok(out)
}

/// [`measure`], asserting: every name matches, 20 rows, and every row's relative error of the
/// accelerations is at most `tol`. Returns the largest.
pub fn compare<
    Sys,
    const N: usize,
    const M: usize,
    const U: usize,
    const D: usize,
    const X: usize,
>(
    label: &str,
    sys: Sys,
    shown: &Shown,
    text: &str,
    tol: f64,
) -> f64
where
    Sys: Dimensions<N, M, 0, U, D, X>,
{
    let m = measure(sys, shown, text).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(m.rows, 20, "{label}: rows");
    assert!(
        m.worst <= tol,
        "{label}, row {}: relative error {:e} of the accelerations\n got  {:?}\n want {:?}",
        m.row,
        m.worst,
        m.got,
        m.want
    );
    m.worst
}
