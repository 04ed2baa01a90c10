//! The ensemble runner: reproducible draws, failures isolated and reported, shards that add up
//! to the whole, and the Parquet file read back.

use spark::{GaussLobatto, Integrator, State};
use spark_ensemble::{read_parquet, Cell, Ensemble, Run, Shard, Status};

spark::mechanics! {
    /// A pendulum of length `l` in Cartesian coordinates.
    pub struct Pendulum {
        parameters: [l = 1.0],
        coordinates: [x, y],
        velocities: [vx, vy],
        lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
        holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    }
}

/// One simulated second of a pendulum of drawn length from a drawn angle; run 13 is given a
/// state off its circle, which the integrator refuses.
fn pendulum(run: &mut Run) -> Result<[f64; 3], spark::Error> {
    let l = run.uniform("l", 0.5, 2.0);
    let angle = run.normal("angle", 0.5, 0.2);
    let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum { l }, 0.01)?;
    let r = if run.index() == 13 { 1.5 * l } else { l };
    let mut s = State::new(0.0, [r * angle.sin(), -r * angle.cos()], [0.0, 0.0]);
    let e0 = sim.energy(&s);
    for _ in 0..100 {
        sim.step(&mut s)?;
    }
    Ok([s.q[0], s.q[1], sim.energy(&s) - e0])
}

const COLUMNS: [&str; 3] = ["x", "y", "energy_error"];

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "spark-ensemble-{name}-{}.parquet",
        std::process::id()
    ))
}

#[test]
fn the_draws_depend_on_seed_and_index_only() {
    let one = Ensemble::new(40)
        .seed(11)
        .threads(1)
        .quiet()
        .run(&COLUMNS, pendulum);
    let two = Ensemble::new(40)
        .seed(11)
        .threads(2)
        .quiet()
        .run(&COLUMNS, pendulum);
    assert_eq!(one.threads(), 1);
    assert_eq!(two.threads(), 2);
    for (a, b) in one.records().iter().zip(two.records()) {
        assert_eq!(a.index(), b.index());
        assert_eq!(a.drawn_values(), b.drawn_values());
        assert_eq!(a.values(), b.values());
        assert_eq!(a.status(), b.status());
    }
    // Another seed draws other lengths.
    let other = Ensemble::new(40).seed(12).quiet().run(&COLUMNS, pendulum);
    let differ = one
        .records()
        .iter()
        .zip(other.records())
        .filter(|(a, b)| a.drawn("l") != b.drawn("l"))
        .count();
    assert_eq!(differ, 40);
    // The draws cover their range.
    let ls: Vec<f64> = one.records().iter().filter_map(|r| r.drawn("l")).collect();
    assert!(ls.iter().all(|l| (0.5..2.0).contains(l)));
    assert!(ls.iter().cloned().fold(f64::INFINITY, f64::min) < 0.7);
    assert!(ls.iter().cloned().fold(0.0, f64::max) > 1.8);
}

#[test]
fn a_failed_run_is_reported_and_the_others_finish() {
    let results = Ensemble::new(30).seed(3).quiet().run(&COLUMNS, pendulum);
    let failed: Vec<_> = results.failed().collect();
    assert_eq!(failed.len(), 1, "{results}");
    assert_eq!(failed[0].index(), 13);
    assert!(matches!(failed[0].status(), Status::Failed(_)));
    assert!(failed[0].values().is_empty());
    // Its draws are still recorded, so it can be replayed.
    assert!(failed[0].drawn("l").is_some());
    assert_eq!(results.ok().count(), 29);
    // The others are real simulations: on the circle, energy kept by the symplectic step.
    for r in results.ok() {
        let (l, x, y) = (
            r.drawn("l").unwrap(),
            r.value("x").unwrap(),
            r.value("y").unwrap(),
        );
        assert!(
            ((x * x + y * y).sqrt() - l).abs() < 1e-10,
            "run {}",
            r.index()
        );
        assert!(r.value("energy_error").unwrap().abs() < 1e-3 * 9.81 * l);
    }
}

#[test]
fn panics_wrong_sizes_and_non_finite_values_fail_one_run_each() {
    let results = Ensemble::new(6).quiet().run(&["a", "b"], |run| {
        match run.index() {
            1 => panic!("run one panics"),
            2 => return Ok(vec![1.0]),
            3 => return Ok(vec![1.0, f64::NAN]),
            4 => return Err("four is refused"),
            _ => {}
        }
        Ok(vec![1.0, 2.0])
    });
    let status: Vec<String> = results
        .records()
        .iter()
        .map(|r| r.status().to_string())
        .collect();
    assert_eq!(status[0], "ok");
    assert_eq!(status[1], "panic: run one panics");
    assert!(
        status[2].contains("1 values for the 2 columns"),
        "{}",
        status[2]
    );
    assert!(status[3].contains("b = NaN"), "{}", status[3]);
    assert_eq!(status[4], "four is refused");
    assert_eq!(status[5], "ok");
}

#[test]
fn shards_add_up_to_the_whole_ensemble() {
    let whole = Ensemble::new(25).seed(5).quiet().run(&COLUMNS, pendulum);
    let mut merged = Vec::new();
    for k in 0..3 {
        let part = Ensemble::new(25)
            .seed(5)
            .shard(Shard::new(k, 3).unwrap())
            .quiet()
            .run(&COLUMNS, pendulum);
        assert!(part.records().iter().all(|r| r.index() % 3 == k));
        merged.extend(part.records().to_vec());
    }
    merged.sort_by_key(|r| r.index());
    assert_eq!(merged.len(), 25);
    for (a, b) in whole.records().iter().zip(&merged) {
        assert_eq!(a.index(), b.index());
        assert_eq!(a.drawn_values(), b.drawn_values());
        assert_eq!(a.values(), b.values());
    }
    assert!(Shard::new(3, 3).is_err());
    assert!(Shard::new(0, 0).is_err());
}

#[test]
fn the_parquet_file_reads_back_row_for_row() {
    let results = Ensemble::new(30).seed(3).quiet().run(&COLUMNS, pendulum);
    let path = temp("readback");
    results.write_parquet(&path).unwrap();
    let table = read_parquet(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        table.columns,
        [
            "run",
            "status",
            "seconds",
            "l",
            "angle",
            "x",
            "y",
            "energy_error"
        ]
    );
    assert_eq!(table.rows.len(), 30);
    for (row, r) in table.rows.iter().zip(results.records()) {
        assert_eq!(row[0], Cell::Int(r.index() as i64));
        assert_eq!(row[1], Cell::Text(r.status().to_string()));
        assert_eq!(row[3], Cell::Number(r.drawn("l").unwrap()));
        match r.value("x") {
            Some(x) => assert_eq!(row[5], Cell::Number(x)),
            None => assert_eq!(row[5], Cell::Null),
        }
    }
    assert!(matches!(table.rows[13][1], Cell::Text(ref s) if s != "ok"));
}

#[test]
fn a_column_named_twice_is_refused() {
    let results = Ensemble::new(2).quiet().run(&["l"], |run| {
        let l = run.uniform("l", 0.0, 1.0);
        Ok::<_, String>([l])
    });
    let err = results.write_parquet(temp("twice")).unwrap_err();
    assert!(err.to_string().contains("\"l\" is named twice"), "{err}");
}

#[test]
fn a_shard_from_the_environment_parses_or_says_what_is_wrong() {
    // One test touches the environment, so that no other test sees these variables change.
    std::env::set_var("SPARK_SHARD", "2/5");
    assert_eq!(Shard::from_env().unwrap(), Shard::new(2, 5).unwrap());
    std::env::set_var("SPARK_SHARD", "two of five");
    assert!(Shard::from_env()
        .unwrap_err()
        .to_string()
        .contains("INDEX/COUNT"));
    std::env::set_var("SPARK_SHARD", "5/5");
    assert!(Shard::from_env().is_err());
    std::env::remove_var("SPARK_SHARD");
    std::env::set_var("SLURM_ARRAY_TASK_ID", "1");
    std::env::set_var("SLURM_ARRAY_TASK_COUNT", "4");
    assert_eq!(Shard::from_env().unwrap(), Shard::new(1, 4).unwrap());
    std::env::remove_var("SLURM_ARRAY_TASK_ID");
    std::env::remove_var("SLURM_ARRAY_TASK_COUNT");
    assert_eq!(Shard::from_env().unwrap(), Shard::ALL);
}
