//! Run many simulations at once: parameter sweeps, Monte Carlo studies, a controller's
//! robustness over a thousand perturbed plants.
//!
//! An [`Ensemble`] runs a closure once per run index across the machine's cores
//! ([rayon](https://docs.rs/rayon)), shows a progress bar on a terminal
//! ([indicatif](https://docs.rs/indicatif)), and returns [`Results`]: one [`Record`] per run with
//! its status (`ok`, or the error or panic message of a failed run, which never stops the
//! others), its wall time, the values it drew and the values it reported.
//! [`Results::write_parquet`] writes them as one row per run to a Parquet file that pandas,
//! polars and DuckDB read.
//!
//! Each run draws its random numbers from its own stream ([`Run::uniform`], [`Run::normal`]):
//! ChaCha8 seeded by the ensemble's seed, on the stream numbered by the run's index. A run's
//! draws therefore depend on `(seed, index)` alone, not on the number of threads or on which
//! machine runs it, so the same runs split over machines ([`Ensemble::shard`]) give the same
//! rows. `docs/ensembles.md` in the repository shows Slurm, Ray and Dask doing that.
//!
//! ```
//! use spark::{GaussLobatto, Integrator, State};
//! use spark_ensemble::Ensemble;
//!
//! spark::mechanics! {
//!     /// A pendulum of length `l`, in Cartesian coordinates.
//!     pub struct Pendulum {
//!         parameters: [l = 1.0],
//!         coordinates: [x, y],
//!         velocities: [vx, vy],
//!         lagrangian: 0.5 * (vx.powi(2) + vy.powi(2)) - 9.81 * y,
//!         holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
//!     }
//! }
//!
//! // Twenty pendulums of drawn lengths released from the horizontal: where is each after 1 s?
//! let results = Ensemble::new(20).seed(7).quiet().run(&["x", "y"], |run| {
//!     let l = run.uniform("l", 0.5, 2.0);
//!     let mut sim = Integrator::<Pendulum, GaussLobatto<2>>::new(Pendulum { l }, 0.01)?;
//!     let mut s = State::new(0.0, [l, 0.0], [0.0, 0.0]);
//!     for _ in 0..100 {
//!         sim.step(&mut s)?;
//!     }
//!     Ok::<_, spark::Error>([s.q[0], s.q[1]])
//! });
//! assert_eq!(results.records().len(), 20);
//! assert_eq!(results.failed().count(), 0);
//! // Every bob is still on its circle.
//! for r in results.records() {
//!     let (l, x, y) = (r.drawn("l").unwrap(), r.value("x").unwrap(), r.value("y").unwrap());
//!     assert!(((x * x + y * y).sqrt() - l).abs() < 1e-12);
//! }
//! # let path = std::env::temp_dir().join(format!("spark-ensemble-doc-{}.parquet", std::process::id()));
//! results.write_parquet(&path).unwrap();
//! # std::fs::remove_file(&path).unwrap();
//! ```

#![warn(missing_docs)]

mod draw;
mod ensemble;
mod parquet_file;
mod results;

pub use draw::Run;
pub use ensemble::{Ensemble, Shard};
pub use parquet_file::{read_parquet, Cell, Table};
pub use results::{Record, Results, Status};

/// What went wrong writing or reading a results file, or configuring an ensemble.
#[derive(Debug)]
pub enum Error {
    /// Creating, writing or reading the file failed.
    Io(std::io::Error),
    /// The Parquet encoder or decoder refused the data (the message says why).
    Parquet(String),
    /// A setting is invalid (the message names it and the valid range).
    Settings(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io(e) => write!(f, "results file: {e}"),
            Error::Parquet(e) => write!(f, "parquet: {e}"),
            Error::Settings(e) => write!(f, "ensemble settings: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Self {
        Error::Parquet(e.to_string())
    }
}
