//! What the runs gave: one record per run, and the ensemble's summary.

use std::fmt;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It returned its values.
    Ok,
    /// It returned an error (or values that cannot be stored): the message.
    Failed(String),
    /// It panicked: the panic's message.
    Panicked(String),
}

impl fmt::Display for Status {
    /// `ok`, the error's message, or `panic: ` and the panic's message: the `status` column.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ok => f.write_str("ok"),
            Status::Failed(e) => f.write_str(e),
            Status::Panicked(e) => write!(f, "panic: {e}"),
        }
    }
}

/// One run: its index, status, wall time, the values it drew (or recorded) and the values it
/// returned (none when it failed).
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    index: usize,
    status: Status,
    seconds: f64,
    drawn: Vec<(String, f64)>,
    values: Vec<(String, f64)>,
}

impl Record {
    pub(crate) fn new(
        index: usize,
        status: Status,
        seconds: f64,
        drawn: Vec<(String, f64)>,
        columns: &[&str],
        values: Vec<f64>,
    ) -> Self {
        let values = columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.to_string(), v))
            .collect();
        Record {
            index,
            status,
            seconds,
            drawn,
            values,
        }
    }

    /// The run's index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How it ended.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// Whether it returned its values.
    pub fn is_ok(&self) -> bool {
        self.status == Status::Ok
    }

    /// Its wall time in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The value it drew or recorded under `name`, if it did.
    pub fn drawn(&self, name: &str) -> Option<f64> {
        find(&self.drawn, name)
    }

    /// The value it returned for the column `name` (`None` for a failed run).
    pub fn value(&self, name: &str) -> Option<f64> {
        find(&self.values, name)
    }

    /// Every drawn value, in the order drawn.
    pub fn drawn_values(&self) -> &[(String, f64)] {
        &self.drawn
    }

    /// Every returned value, in column order.
    pub fn values(&self) -> &[(String, f64)] {
        &self.values
    }
}

fn find(list: &[(String, f64)], name: &str) -> Option<f64> {
    list.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
}

/// The records of an ensemble's runs, in index order, with its wall time and thread count.
#[derive(Clone, Debug)]
pub struct Results {
    columns: Vec<String>,
    records: Vec<Record>,
    seconds: f64,
    threads: usize,
}

impl Results {
    pub(crate) fn new(
        columns: Vec<String>,
        records: Vec<Record>,
        seconds: f64,
        threads: usize,
    ) -> Self {
        Results {
            columns,
            records,
            seconds,
            threads,
        }
    }

    /// Every run's record, in index order.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The runs that returned their values.
    pub fn ok(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| r.is_ok())
    }

    /// The runs that failed or panicked.
    pub fn failed(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| !r.is_ok())
    }

    /// The names of the returned values.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The names of the drawn values, in the order they first appear.
    pub fn drawn_columns(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for r in &self.records {
            for (n, _) in &r.drawn {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        names
    }

    /// Wall time of the whole ensemble, in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The number of threads that ran it.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Writes one row per run to a Parquet file at `path` (see [`crate::read_parquet`] for the
    /// columns).
    pub fn write_parquet(&self, path: impl AsRef<std::path::Path>) -> Result<(), crate::Error> {
        crate::parquet_file::write(self, path.as_ref())
    }
}

impl fmt::Display for Results {
    /// `N runs: K ok, F failed, S s on T threads`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} runs: {} ok, {} failed, {:.2} s on {} threads",
            self.records.len(),
            self.ok().count(),
            self.failed().count(),
            self.seconds,
            self.threads
        )
    }
}
