//! Discrete LQR (issue 31): the infinite-horizon gain equals SciPy's DARE solution stored in
//! `tests/data/dare_reference.txt` (`benches/control/dare_reference.py`), and the finite-horizon
//! Riccati recursion converges to it.

use spark::control::lqr::{dare, riccati_step};
use spark::nalgebra::SMatrix;

/// The matrix `label` of case `name` in the reference file (row-major values).
fn reference<const R: usize, const C: usize>(name: &str, label: &str) -> SMatrix<f64, R, C> {
    let text = include_str!("../data/dare_reference.txt");
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut it = line.split_whitespace();
        if it.next() == Some(name) && it.next() == Some(label) {
            let r: usize = it.next().unwrap().parse().unwrap();
            let c: usize = it.next().unwrap().parse().unwrap();
            assert_eq!((r, c), (R, C), "{name} {label}");
            let vals: Vec<f64> = it.map(|v| v.parse().unwrap()).collect();
            return SMatrix::from_row_slice(&vals);
        }
    }
    panic!("{name} {label} not in the reference file");
}

fn check<const D: usize, const U: usize>(name: &str) {
    let a = reference::<D, D>(name, "A");
    let b = reference::<D, U>(name, "B");
    let q = reference::<D, D>(name, "Q");
    let r = reference::<U, U>(name, "R");
    let p_ref = reference::<D, D>(name, "P");
    let k_ref = reference::<U, D>(name, "K");
    let lqr = dare(&a, &b, &q, &r).unwrap();
    let dk = (lqr.gain - k_ref).amax() / k_ref.amax();
    let dp = (lqr.cost_to_go - p_ref).amax() / p_ref.amax();
    println!(
        "{name}: doubling steps {}, gain {dk:.2e}, P {dp:.2e} (relative to SciPy)",
        lqr.iterations
    );
    assert!(dk < 1e-9 && dp < 1e-9, "{name}: {dk:e} {dp:e}");
    // The finite-horizon recursion from P = Q tends to the same gain.
    let mut p = q;
    let mut k = SMatrix::<f64, U, D>::zeros();
    for _ in 0..5000 {
        let s = riccati_step(&a, &b, &q, &r, &p).unwrap();
        p = s.cost_to_go;
        k = s.gain;
    }
    let dr = (k - k_ref).amax() / k_ref.amax();
    println!("{name}: Riccati recursion after 5000 steps: gain {dr:.2e}");
    assert!(dr < 1e-8, "{dr:e}");
}

#[test]
fn dare_gain_equals_the_scipy_reference_cartpole() {
    check::<4, 1>("cartpole");
}

#[test]
fn dare_gain_equals_the_scipy_reference_coupled() {
    check::<3, 2>("coupled");
}

#[test]
fn dare_rejects_bad_input() {
    let a = SMatrix::<f64, 2, 2>::identity();
    let b = SMatrix::<f64, 2, 1>::new(0.0, 1.0);
    let q = SMatrix::<f64, 2, 2>::identity();
    assert!(dare(&a, &b, &q, &SMatrix::from([[-1.0]])).is_err());
    assert!(dare(&a, &b, &q, &SMatrix::from([[f64::NAN]])).is_err());
}
