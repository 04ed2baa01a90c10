//! One run's view of the ensemble: its index and its own stream of random numbers, with the
//! values it draws recorded under their names.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One run: its index in the ensemble and its random stream.
///
/// The stream is ChaCha8 seeded with the ensemble's seed, on stream number `index`: the draws
/// of run `i` are the same whichever thread, process or machine runs it. Every named draw
/// ([`Run::uniform`], [`Run::normal`], [`Run::record`]) becomes a column of the results.
///
/// ```
/// use spark_ensemble::Run;
///
/// let mut a = Run::new(42, 3);
/// let mut b = Run::new(42, 3);
/// assert_eq!(a.uniform("mass", 1.0, 2.0), b.uniform("mass", 1.0, 2.0));
/// assert_eq!(a.drawn(), b.drawn());
/// ```
#[derive(Clone, Debug)]
pub struct Run {
    index: usize,
    rng: ChaCha8Rng,
    drawn: Vec<(String, f64)>,
}

impl Run {
    /// Run `index` of an ensemble seeded with `seed` (what [`crate::Ensemble::run`] hands its
    /// closure; public so that one run can be replayed alone).
    pub fn new(seed: u64, index: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index as u64);
        Run {
            index,
            rng,
            drawn: Vec::new(),
        }
    }

    /// The run's index, `0..runs`: also the way to take the run's entry from a listed sweep
    /// (`gains[run.index()]`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// A uniform number in `[0, 1)` with 53 random bits, not recorded.
    pub fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A number drawn uniformly from `[lo, hi)`, recorded as the column `name`.
    ///
    /// ```
    /// let mut run = spark_ensemble::Run::new(1, 0);
    /// let m = run.uniform("mass", 0.9, 1.1);
    /// assert!((0.9..1.1).contains(&m));
    /// ```
    pub fn uniform(&mut self, name: &str, lo: f64, hi: f64) -> f64 {
        let x = lo + (hi - lo) * self.unit();
        self.record(name, x)
    }

    /// A number drawn from the normal distribution of mean `mean` and standard deviation `sd`
    /// (Box–Muller on two uniform draws), recorded as the column `name`.
    ///
    /// ```
    /// let mut run = spark_ensemble::Run::new(1, 0);
    /// let xs: Vec<f64> = (0..2000).map(|_| run.normal("noise", 0.0, 1.0)).collect();
    /// let mean = xs.iter().sum::<f64>() / 2000.0;
    /// assert!(mean.abs() < 0.1);
    /// ```
    pub fn normal(&mut self, name: &str, mean: f64, sd: f64) -> f64 {
        // 1 − u lies in (0, 1], so the logarithm is finite.
        let u = 1.0 - self.unit();
        let v = self.unit();
        let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
        self.record(name, mean + sd * z)
    }

    /// Records `value` as the column `name` (a listed parameter, or a value computed from
    /// draws) and returns it. Recording a name twice keeps the last value.
    pub fn record(&mut self, name: &str, value: f64) -> f64 {
        match self.drawn.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.drawn.push((name.to_owned(), value)),
        }
        value
    }

    /// The values recorded so far, in the order they were first recorded.
    pub fn drawn(&self) -> &[(String, f64)] {
        &self.drawn
    }

    pub(crate) fn into_drawn(self) -> Vec<(String, f64)> {
        self.drawn
    }
}
