//! Tests of [`super::mesh`]: the readers' bounds and errors, and agreement with MuJoCo 4.0.0
//! on the cases of `tests/meshes/reference.csv` (written by `tests/meshes/reference.py`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::mesh::*;
use super::tree::{self, M3, V3};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/meshes")
}

fn nums(s: &str) -> Vec<f64> {
    s.split_whitespace().map(|w| w.parse().unwrap()).collect()
}

fn v3(s: &str) -> V3 {
    let v = nums(s);
    [v[0], v[1], v[2]]
}

fn q4(s: &str) -> [f64; 4] {
    let v = nums(s);
    [v[0], v[1], v[2], v[3]]
}

/// The inertia tensor in the body frame from MuJoCo's principal moments and `iquat`.
fn body_tensor(inertia: V3, iquat: [f64; 4]) -> M3 {
    tree::rotate_inertia(&tree::quat_matrix(iquat), &tree::diag(inertia))
}

fn max_abs_m(a: &M3) -> f64 {
    a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()))
}

fn diff_m(a: &M3, b: &M3) -> f64 {
    let mut d = 0.0f64;
    for i in 0..3 {
        for j in 0..3 {
            d = d.max((a[i][j] - b[i][j]).abs());
        }
    }
    d
}

fn diff_v(a: V3, b: V3) -> f64 {
    (0..3).fold(0.0f64, |m, k| m.max((a[k] - b[k]).abs()))
}

fn max_abs_v(a: V3) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// Relative differences of one case by quantity: mass, com, inertia (the body-frame tensor),
/// geom size, geom pos, geom axes (absolute, entries of `Rᵀ R_mujoco` up to sign).
#[derive(Default)]
struct Diffs(Vec<(&'static str, f64)>);

impl Diffs {
    fn put(&mut self, what: &'static str, d: f64) {
        self.0.push((what, d));
    }
}

fn read_csv() -> Vec<HashMap<String, String>> {
    read_csv_at(&dir().join("reference.csv"))
}

fn read_csv_at(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

/// Our result for one row: (mass, com, tensor, geom size, geom pos, geom rot) or an error.
type Outcome = (f64, V3, M3, V3, V3, M3);

fn compute(r: &HashMap<String, String>) -> Result<Outcome, String> {
    let pos = v3(&r["pos"]);
    let rot = tree::quat_matrix(q4(&r["quat"]));
    let mass_spec = if !r["mass"].is_empty() {
        MassSpec::Mass(r["mass"].parse().unwrap())
    } else if !r["density"].is_empty() {
        MassSpec::Density(r["density"].parse().unwrap())
    } else {
        MassSpec::Density(1000.0)
    };
    let shell = r["shellinertia"] == "true";
    let primitive = |kind: Primitive, size: V3, gpos: V3, grot: M3| -> Outcome {
        let (measure, unit) = if shell {
            primitive_shell(kind, size)
        } else {
            primitive_solid(kind, size)
        };
        let m = match mass_spec {
            MassSpec::Mass(m) => m,
            MassSpec::Density(d) => d * measure,
        };
        let i = tree::rotate_inertia(&grot, &tree::diag(tree::scale(m, unit)));
        (m, gpos, i, size, gpos, grot)
    };
    if r["file"].is_empty() {
        let kind = Primitive::parse(&r["geom_type"]).unwrap();
        let mut size = [0.0; 3];
        for (k, x) in nums(&r["size"]).into_iter().enumerate() {
            size[k] = x;
        }
        return Ok(primitive(kind, size, pos, rot));
    }
    let mesh = load(&dir().join(&r["file"]))?;
    let params = MeshParams {
        scale: v3(&r["scale"]),
        refpos: v3(&r["refpos"]),
        refquat: q4(&r["refquat"]),
        inertia: InertiaMode::parse(&r["inertia"]).unwrap(),
        maxhullvert: match r["maxhullvert"].as_str() {
            "-1" => None,
            m => Some(m.parse().unwrap()),
        },
    };
    let mm = mass_properties_with(&mesh, &params)?;
    if r["geom_type"] == "mesh" {
        let (m, c, i) = mesh_geom_mass(pos, &rot, mass_spec, &mm);
        if std::env::var("SPARK_MESH_EXACT").is_ok() {
            // Diagnostic: the tensor itself instead of MuJoCo's path through the frame.
            let t = tree::rotate_inertia(&rot, &mm.inertia);
            let i = [0, 1, 2].map(|a| [0, 1, 2].map(|b| t[a][b] * m / mm.measure));
            let size = [0, 1, 2].map(|k| mm.aabb[0][k].abs().max(mm.aabb[1][k].abs()));
            return Ok((m, c, i, size, c, tree::mul(&rot, &mm.frame_rot)));
        }
        let size = [0, 1, 2].map(|k| mm.aabb[0][k].abs().max(mm.aabb[1][k].abs()));
        return Ok((m, c, i, size, c, tree::mul(&rot, &mm.frame_rot)));
    }
    let kind = Primitive::parse(&r["geom_type"]).unwrap();
    let fit = fit_primitive(
        kind,
        &mm,
        r["fitaabb"] == "true",
        r["fitscale"].parse().unwrap(),
    );
    let gpos = tree::add(pos, tree::mul_v(&rot, fit.pos));
    let grot = tree::mul(&rot, &fit.rot);
    Ok(primitive(kind, fit.size, gpos, grot))
}

fn compare(r: &HashMap<String, String>) -> Result<Diffs, String> {
    let ours = compute(r);
    let mut d = Diffs::default();
    match (&ours, r["error"].is_empty()) {
        (Err(e), true) => return Err(format!("we fail, MuJoCo does not: {e}")),
        (Ok(_), false) => return Err(format!("MuJoCo fails, we do not: {}", r["error"])),
        (Err(_), false) => return Ok(d),
        (Ok(_), true) => {}
    }
    let (m, c, i, size, gpos, grot) = ours.unwrap();
    let mj_m: f64 = r["body_mass"].parse().unwrap();
    let mj_c = v3(&r["body_ipos"]);
    let mj_i = body_tensor(v3(&r["body_inertia"]), q4(&r["body_iquat"]));
    // Lengths relative to the larger of the value and 1 cm.
    let len = |v: V3| max_abs_v(v).max(0.01);
    d.put("mass", (m - mj_m).abs() / mj_m.abs());
    d.put("com", diff_v(c, mj_c) / len(mj_c));
    d.put("inertia", diff_m(&i, &mj_i) / max_abs_m(&mj_i));
    let mj_size = v3(&r["geom_size"]);
    if r["geom_type"] != "mesh" || !r["file"].is_empty() {
        d.put("geom size", diff_v(size, mj_size) / len(mj_size));
    }
    d.put(
        "geom pos",
        diff_v(gpos, v3(&r["geom_pos"])) / len(v3(&r["geom_pos"])),
    );
    // The frames agree up to a half turn about a principal axis (MuJoCo 4.0.0's Jacobi
    // iteration is not published; see `eig3`): compare the axes up to sign.
    let mj_rot = tree::quat_matrix(q4(&r["geom_quat"]));
    let rel = tree::mul(&tree::transpose(&grot), &mj_rot);
    let mut axes = 0.0f64;
    for (i, row) in rel.iter().enumerate() {
        for (j, x) in row.iter().enumerate() {
            let want = if i == j { 1.0 } else { 0.0 };
            axes = axes.max((x.abs() - want).abs());
        }
    }
    d.put("geom axes", axes);
    Ok(d)
}

/// Mass and a mesh geom's centre of mass do not depend on the principal frame: 1e-10.
/// Everything else goes through MuJoCo's Jacobi iteration, whose stopping rule in 4.0.0 this
/// module matches only approximately (see `eig3`): 1e-9.
fn tolerance(what: &str, r: &HashMap<String, String>) -> f64 {
    match what {
        "mass" => 1e-10,
        "com" if r["geom_type"] == "mesh" => 1e-10,
        _ => 1e-9,
    }
}

#[test]
fn mesh_agrees_with_mujoco() {
    let rows = read_csv();
    assert!(rows.len() > 200);
    let mut failures = Vec::new();
    let mut worst: HashMap<&str, (f64, String)> = HashMap::new();
    let mut errors = 0;
    for r in &rows {
        let label = format!(
            "case {} ({} {} scale {} {} fitaabb {})",
            r["case"], r["file"], r["inertia"], r["scale"], r["geom_type"], r["fitaabb"]
        );
        // maxhullvert: our first simplex is not Qhull's; see `mesh_maxhullvert_differs`.
        if r["maxhullvert"] != "-1" {
            continue;
        }
        if !r["error"].is_empty() {
            errors += 1;
        }
        match compare(r) {
            Err(e) => failures.push(format!("{label}: {e}")),
            Ok(d) => {
                for (what, x) in d.0 {
                    let w = worst.entry(what).or_insert((0.0, String::new()));
                    if x > w.0 {
                        *w = (x, label.clone());
                    }
                    if x.is_nan() || x > tolerance(what, r) {
                        failures.push(format!("{label}: {what} differs by {x:e}"));
                    }
                }
            }
        }
    }
    let mut keys: Vec<_> = worst.keys().copied().collect();
    keys.sort();
    for k in keys {
        println!(
            "largest difference of {k}: {:e} at {}",
            worst[k].0, worst[k].1
        );
    }
    println!("{} cases, {errors} of them MuJoCo errors", rows.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Real meshes: `SPARK_MESH_CSV=/tmp/menagerie-meshes/menagerie.csv cargo test -p spark-macros
/// --lib mesh_menagerie -- --ignored --nocapture` (the CSV written like `reference.csv`, with
/// absolute file names; the meshes are not in the repository). With `SPARK_MESH_EXACT=1` a
/// mesh geom's tensor is the exact one ([`MeshMass::inertia`]) instead of MuJoCo's path
/// through the principal frame.
#[test]
#[ignore]
fn mesh_menagerie() {
    let Ok(path) = std::env::var("SPARK_MESH_CSV") else {
        return;
    };
    let mut worst: HashMap<&str, (f64, String)> = HashMap::new();
    let mut failures = Vec::new();
    let start = std::time::Instant::now();
    let rows = read_csv_at(Path::new(&path));
    for r in &rows {
        let label = format!("{} {} {}", r["file"], r["inertia"], r["geom_type"]);
        match compare(r) {
            Err(e) => failures.push(format!("{label}: {e}")),
            Ok(d) => {
                for (what, x) in d.0 {
                    if x > 1e-10 {
                        println!("{label}: {what} differs by {x:e}");
                    }
                    let w = worst.entry(what).or_insert((0.0, String::new()));
                    if x > w.0 || x.is_nan() {
                        *w = (x, label.clone());
                    }
                }
            }
        }
    }
    let mut keys: Vec<_> = worst.keys().copied().collect();
    keys.sort();
    for k in keys {
        println!(
            "largest difference of {k}: {:e} at {}",
            worst[k].0, worst[k].1
        );
    }
    println!("{} cases in {:?}", rows.len(), start.elapsed());
    for f in &failures {
        println!("{f}");
    }
    assert!(failures.is_empty());
}

#[test]
fn mesh_maxhullvert_differs() {
    // Reported, not asserted: Qhull's first simplex and partition are not reproduced.
    for r in read_csv().iter().filter(|r| r["maxhullvert"] != "-1") {
        let d = compare(r).unwrap();
        let m = d.0.iter().find(|x| x.0 == "mass").unwrap().1;
        let i = d.0.iter().find(|x| x.0 == "inertia").unwrap().1;
        println!(
            "maxhullvert {}: mass differs by {m:e}, inertia by {i:e}",
            r["maxhullvert"]
        );
    }
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spark-mesh-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn mesh_binary_stl_truncated() {
    let full = std::fs::read(dir().join("cube.stl")).unwrap();
    let e = load(&temp("cut.stl", &full[..full.len() - 7])).unwrap_err();
    assert!(e.contains("cut.stl") && e.contains("faces need"), "{e}");
    let e = load(&temp("short.stl", &full[..50])).unwrap_err();
    assert!(e.contains("short.stl") && e.contains("truncated"), "{e}");
}

#[test]
fn mesh_ascii_stl_reads_as_binary_twin() {
    let a = load(&dir().join("lshape_ascii.stl")).unwrap();
    let b = load(&dir().join("lshape.stl")).unwrap();
    assert_eq!(a.vertices, b.vertices);
    assert_eq!(a.faces, b.faces);
}

#[test]
fn mesh_nan_coordinates() {
    let stl = "solid x\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 nan\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n";
    let e = load(&temp("nan.stl", stl.as_bytes())).unwrap_err();
    assert!(e.contains("nan.stl") && e.contains("not finite"), "{e}");
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 NaN\nv 0 0 1\nf 1 2 3\n";
    let e = load(&temp("nan.obj", obj.as_bytes())).unwrap_err();
    assert!(e.contains("nan.obj") && e.contains("line 3"), "{e}");
    let mut msh = std::fs::read(dir().join("tetra.msh")).unwrap();
    msh[16..20].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = load(&temp("nan.msh", &msh)).unwrap_err();
    assert!(e.contains("nan.msh") && e.contains("vertex 1"), "{e}");
}

#[test]
fn mesh_bad_face_index() {
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 9\n";
    let e = load(&temp("bad.obj", obj.as_bytes())).unwrap_err();
    assert!(
        e.contains("bad.obj") && e.contains("line 6") && e.contains("9"),
        "{e}"
    );
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf -1 -2 -5\n";
    let e = load(&temp("rel.obj", obj.as_bytes())).unwrap_err();
    assert!(
        e.contains("rel.obj") && e.contains("before the first vertex"),
        "{e}"
    );
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 0 1 2\n";
    assert!(load(&temp("zero.obj", obj.as_bytes())).is_err());
    let mut msh = std::fs::read(dir().join("tetra.msh")).unwrap();
    let at = msh.len() - 4;
    msh[at..].copy_from_slice(&7i32.to_le_bytes());
    let e = load(&temp("bad.msh", &msh)).unwrap_err();
    assert!(e.contains("bad.msh") && e.contains("vertex 8"), "{e}");
    let e = load(&temp("cut.msh", &msh[..msh.len() - 2])).unwrap_err();
    assert!(e.contains("cut.msh") && e.contains("bytes"), "{e}");
}

#[test]
fn mesh_obj_quads_relative_indices_first_group() {
    let m = load(&dir().join("groups.obj")).unwrap();
    let l = load(&dir().join("lshape.obj")).unwrap();
    assert_eq!(m.faces, l.faces);
    assert_eq!(m.vertices.len(), l.vertices.len() + 8);
    assert_eq!(l.faces.len(), 4 * 2 + 6 * 2);
}

#[test]
fn mesh_refuses_non_files_and_huge_files() {
    let d = std::env::temp_dir().join(format!("spark-mesh-dir-{}.stl", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let e = load(&d).unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
    let fifo = std::env::temp_dir().join(format!("spark-mesh-fifo-{}.obj", std::process::id()));
    let _ = std::fs::remove_file(&fifo);
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        // Would block forever if opened for reading.
        let e = load(&fifo).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&fifo).unwrap();
    }
    let big = temp("big.stl", b"");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_FILE_BYTES + 1)
        .unwrap();
    let e = load(&big).unwrap_err();
    assert!(e.contains("limit"), "{e}");
    std::fs::remove_file(&big).unwrap();
    let e = load(Path::new("/nonexistent/x.ply")).unwrap_err();
    assert!(e.contains("extension"), "{e}");
}

#[test]
fn mesh_hull_of_cube_with_coplanar_and_duplicate_points() {
    // A cube's corners, its face centres, edge midpoints, duplicates and the centre.
    let mut pts = Vec::new();
    for i in 0..27 {
        let c = [i % 3, (i / 3) % 3, i / 9].map(|k| k as f64 * 0.5);
        pts.push(c);
        pts.push(c);
    }
    let (tris, count) = convex_hull(&pts, None, "cube").unwrap();
    assert_eq!(count, 8, "only the corners are hull vertices");
    // Closed: every directed edge has its twin.
    let mut edges = std::collections::HashSet::new();
    for t in &tris {
        for k in 0..3 {
            assert!(edges.insert((t[k], t[(k + 1) % 3])));
        }
    }
    for &(a, b) in &edges {
        assert!(edges.contains(&(b, a)));
    }
    let mesh = Mesh {
        name: "cube".into(),
        vertices: pts,
        faces: tris,
    };
    let mm = mass_properties(&mesh, [1.0; 3], InertiaMode::Exact).unwrap();
    assert!((mm.measure - 1.0).abs() < 1e-14);
    assert!(diff_v(mm.com, [0.5; 3]) < 1e-14);
    assert!((mm.inertia[0][0] - 1.0 / 6.0).abs() < 1e-14);
}

#[test]
fn mesh_degenerate_hulls() {
    let flat: Vec<V3> = (0..10).map(|i| [i as f64, (i * i) as f64, 0.0]).collect();
    assert!(convex_hull(&flat, None, "flat")
        .unwrap_err()
        .contains("coplanar"));
    let line: Vec<V3> = (0..10).map(|i| [i as f64, 2.0 * i as f64, 0.0]).collect();
    assert!(convex_hull(&line, None, "line")
        .unwrap_err()
        .contains("collinear"));
}

#[test]
fn mesh_default_mode_is_legacy() {
    assert_eq!(InertiaMode::default(), InertiaMode::Legacy);
}
