//! The ensemble: how many runs, from which seed, on how many threads, which shard; and the
//! parallel loop that runs them.

use std::fmt::Display;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::draw::Run;
use crate::results::{Record, Results, Status};
use crate::Error;

/// Which part of the runs this process does: the indices `i` with `i % count == index`.
///
/// Shards of one ensemble on different machines give, together, exactly the rows of the whole
/// ensemble run on one (a run's draws depend only on the seed and its index).
///
/// ```
/// use spark_ensemble::Shard;
///
/// let s = Shard::new(1, 4).unwrap();
/// assert_eq!(s.indices(10).collect::<Vec<_>>(), [1, 5, 9]);
/// assert!(Shard::new(4, 4).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// The whole ensemble in one process.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count` (`index < count`).
    pub fn new(index: usize, count: usize) -> Result<Self, Error> {
        if count == 0 || index >= count {
            return Err(Error::Settings(format!(
                "shard {index} of {count}: the shard index must be below the shard count, which \
                 must be at least 1"
            )));
        }
        Ok(Shard { index, count })
    }

    /// The shard named by the environment: `SPARK_SHARD=k/n`, else a Slurm job array's
    /// `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT` (an array `--array=0-(n-1)`), else
    /// [`Shard::ALL`]. A malformed value is an error, not the whole ensemble.
    pub fn from_env() -> Result<Self, Error> {
        let var = |k: &str| std::env::var(k).ok();
        let parse = |what: &str, v: &str| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| Error::Settings(format!("{what} = {v:?} is not a whole number")))
        };
        if let Some(v) = var("SPARK_SHARD") {
            let (k, n) = v.split_once('/').ok_or_else(|| {
                Error::Settings(format!("SPARK_SHARD = {v:?}: expected INDEX/COUNT, as 3/8"))
            })?;
            return Shard::new(
                parse("SPARK_SHARD's index", k)?,
                parse("SPARK_SHARD's count", n)?,
            );
        }
        match (var("SLURM_ARRAY_TASK_ID"), var("SLURM_ARRAY_TASK_COUNT")) {
            (Some(k), Some(n)) => Shard::new(
                parse("SLURM_ARRAY_TASK_ID", &k)?,
                parse("SLURM_ARRAY_TASK_COUNT", &n)?,
            ),
            _ => Ok(Shard::ALL),
        }
    }

    /// This shard's index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of shards.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The run indices of this shard among `runs`.
    pub fn indices(&self, runs: usize) -> impl Iterator<Item = usize> {
        (self.index..runs).step_by(self.count)
    }
}

/// A set of runs: their number, the seed of their draws, the threads that run them, the part
/// of them this process runs, and whether a progress bar is shown.
///
/// ```
/// use spark_ensemble::Ensemble;
///
/// // Run 3 fails; the others go on.
/// let results = Ensemble::new(5).seed(1).threads(2).quiet().run(&["square"], |run| {
///     let i = run.index() as f64;
///     if run.index() == 3 {
///         return Err(format!("run {i} refused"));
///     }
///     Ok([i * i])
/// });
/// assert_eq!(results.ok().count(), 4);
/// let failed: Vec<_> = results.failed().map(|r| r.status().to_string()).collect();
/// assert_eq!(failed, ["run 3 refused"]);
/// ```
#[derive(Clone, Debug)]
pub struct Ensemble {
    runs: usize,
    seed: u64,
    threads: usize,
    progress: bool,
    shard: Shard,
}

impl Ensemble {
    /// `runs` runs, seed 0, on every core, with a progress bar (drawn only when standard error
    /// is a terminal), the whole ensemble in this process.
    pub fn new(runs: usize) -> Self {
        Ensemble {
            runs,
            seed: 0,
            threads: 0,
            progress: true,
            shard: Shard::ALL,
        }
    }

    /// The seed of every run's random stream.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Runs on `threads` threads of a pool of its own; 0 (the default) uses rayon's global
    /// pool, one thread per core (or `RAYON_NUM_THREADS`).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// No progress bar.
    pub fn quiet(mut self) -> Self {
        self.progress = false;
        self
    }

    /// Runs only the indices of `shard` (see [`Shard`]; [`Shard::from_env`] for job arrays).
    pub fn shard(mut self, shard: Shard) -> Self {
        self.shard = shard;
        self
    }

    /// The number of runs of the whole ensemble.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Runs `f` once per index of this shard, in parallel, and collects one [`Record`] per run in
    /// index order.
    ///
    /// `f` gets the run's [`Run`] (its index and random stream) and returns the values of
    /// `columns`, in that order, or an error. An error, a panic, a wrong number of values or a
    /// non-finite value marks that run failed with the message; the other runs go on.
    pub fn run<F, V, E>(&self, columns: &[&str], f: F) -> Results
    where
        F: Fn(&mut Run) -> Result<V, E> + Sync,
        V: Into<Vec<f64>>,
        E: Display,
    {
        let started = Instant::now();
        let indices: Vec<usize> = self.shard.indices(self.runs).collect();
        let bar = if self.progress {
            let bar = ProgressBar::new(indices.len() as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs {msg} [{elapsed_precise}, {eta} left]",
            ) {
                bar.set_style(style);
            }
            bar
        } else {
            ProgressBar::hidden()
        };
        let failures = std::sync::atomic::AtomicUsize::new(0);
        let one = |index: usize| {
            let record = self.one(index, columns, &f);
            if !record.is_ok() {
                let n = failures.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                bar.set_message(format!("({n} failed)"));
            }
            bar.inc(1);
            record
        };
        let (records, threads) = if self.threads == 0 {
            let r: Vec<Record> = indices.par_iter().map(|&i| one(i)).collect();
            (r, rayon::current_num_threads())
        } else {
            match rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads)
                .build()
            {
                Ok(pool) => (
                    pool.install(|| indices.par_iter().map(|&i| one(i)).collect()),
                    self.threads,
                ),
                // No threads to be had: the runs still run, one after the other.
                Err(_) => (indices.iter().map(|&i| one(i)).collect(), 1),
            }
        };
        bar.finish_and_clear();
        Results::new(
            columns.iter().map(|c| c.to_string()).collect(),
            records,
            started.elapsed().as_secs_f64(),
            threads,
        )
    }

    fn one<F, V, E>(&self, index: usize, columns: &[&str], f: &F) -> Record
    where
        F: Fn(&mut Run) -> Result<V, E>,
        V: Into<Vec<f64>>,
        E: Display,
    {
        let started = Instant::now();
        let mut run = Run::new(self.seed, index);
        let outcome = catch_unwind(AssertUnwindSafe(|| f(&mut run)));
        let seconds = started.elapsed().as_secs_f64();
        let (status, values) = match outcome {
            Ok(Ok(v)) => {
                let v: Vec<f64> = v.into();
                if v.len() != columns.len() {
                    let msg = format!(
                        "the run returned {} values for the {} columns {columns:?}",
                        v.len(),
                        columns.len()
                    );
                    (Status::Failed(msg), Vec::new())
                } else if let Some(k) = v.iter().position(|x| !x.is_finite()) {
                    let msg = format!("the run returned {} = {} (not finite)", columns[k], v[k]);
                    (Status::Failed(msg), Vec::new())
                } else {
                    (Status::Ok, v)
                }
            }
            Ok(Err(e)) => (Status::Failed(e.to_string()), Vec::new()),
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                (Status::Panicked(msg), Vec::new())
            }
        };
        Record::new(index, status, seconds, run.into_drawn(), columns, values)
    }
}
