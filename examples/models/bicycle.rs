// The Whipple bicycle: the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A
// 463 (2007)), written as the nonlinear constrained Lagrangian it is. Four rigid bodies: the
// rear wheel R, the rear frame with rider B, the front frame (fork and handlebar) H and the
// front wheel F; both wheels are knife-edge discs rolling without slipping on flat ground.
//
// Frame and conventions are the paper's: x forward, y to the right, z down; in the reference
// configuration (upright, straight, all angles 0) the rear contact is the origin and the
// parameters are the paper's Table 1. Coordinates: the rear contact (x, y), yaw `psi`, lean
// `phi`, the rear frame's pitch `theta`, steer `delta` (about the steer axis, tilted back by
// `lam`), the rear wheel's angle `th_r` relative to the yawed and leaned frame, the front
// wheel's angle `th_f` relative to the front frame. Eight coordinates; one holonomic
// constraint (the front wheel touches the ground) and four nonholonomic ones (no slip at
// either contact, two directions each) leave the three degrees of freedom of the Whipple model
// (lean, steer, forward speed) and five cyclic coordinates.
//
// Positions of the mass centres are written once; their velocities are `dt(...)`, the total
// time derivative the macro takes symbolically. Shared by `examples/bicycle.rs` and
// `tests/mechanisms/bicycle.rs`.

spark::mechanics! {
    /// x component of `Rz(ps) Rx(ph) Ry(th) (a, b, c)`: a vector fixed in the rear frame, in
    /// space.
    fn rot_x(ps: f64, ph: f64, th: f64, a: f64, b: f64, c: f64) -> f64 {
        let a1 = th.cos() * a + th.sin() * c;
        let c1 = th.cos() * c - th.sin() * a;
        let b2 = ph.cos() * b - ph.sin() * c1;
        ps.cos() * a1 - ps.sin() * b2
    }
    /// y component of `Rz(ps) Rx(ph) Ry(th) (a, b, c)`.
    fn rot_y(ps: f64, ph: f64, th: f64, a: f64, b: f64, c: f64) -> f64 {
        let a1 = th.cos() * a + th.sin() * c;
        let c1 = th.cos() * c - th.sin() * a;
        let b2 = ph.cos() * b - ph.sin() * c1;
        ps.sin() * a1 + ps.cos() * b2
    }
    /// z component of `Rz(ps) Rx(ph) Ry(th) (a, b, c)`.
    fn rot_z(ps: f64, ph: f64, th: f64, a: f64, b: f64, c: f64) -> f64 {
        let c1 = th.cos() * c - th.sin() * a;
        ph.sin() * b + ph.cos() * c1
    }
    /// x component of `S(d) (a, 0, c)`: the rotation by the steer angle `d` about the steer
    /// axis `s = (sl, 0, cl)` (Rodrigues) of a vector in the bicycle's plane of symmetry.
    fn steer_x(d: f64, sl: f64, cl: f64, a: f64, c: f64) -> f64 {
        d.cos() * a + (1.0 - d.cos()) * (sl * a + cl * c) * sl
    }
    /// y component of `S(d) (a, 0, c)`.
    fn steer_y(d: f64, sl: f64, cl: f64, a: f64, c: f64) -> f64 {
        d.sin() * (cl * a - sl * c)
    }
    /// z component of `S(d) (a, 0, c)`.
    fn steer_z(d: f64, sl: f64, cl: f64, a: f64, c: f64) -> f64 {
        d.cos() * c + (1.0 - d.cos()) * (sl * a + cl * c) * cl
    }
    /// x component of `S(d)ᵀ (a, b, c)`: a vector of the rear frame in front-frame axes.
    fn unsteer_x(d: f64, sl: f64, cl: f64, a: f64, b: f64, c: f64) -> f64 {
        d.cos() * a + d.sin() * cl * b + (1.0 - d.cos()) * (sl * a + cl * c) * sl
    }
    /// y component of `S(d)ᵀ (a, b, c)`.
    fn unsteer_y(d: f64, sl: f64, cl: f64, a: f64, b: f64, c: f64) -> f64 {
        d.cos() * b - d.sin() * (cl * a - sl * c)
    }
    /// z component of `S(d)ᵀ (a, b, c)`.
    fn unsteer_z(d: f64, sl: f64, cl: f64, a: f64, b: f64, c: f64) -> f64 {
        d.cos() * c - d.sin() * sl * b + (1.0 - d.cos()) * (sl * a + cl * c) * cl
    }
    /// The Whipple bicycle with the benchmark parameters of Meijaard et al. (2007), Table 1:
    /// wheelbase `w`, trail `c`, steer axis tilt `lam`, gravity `g`; per body its mass, the
    /// mass centre `(x*, z*)` in the reference configuration and the inertia tensor about it in
    /// the reference axes (`i*xz` is the tensor's entry).
    pub struct Bicycle {
        coordinates: [x, y, psi, phi, theta, delta, th_r, th_f],
        velocities: [vx, vy, w_psi, w_phi, w_theta, w_delta, w_r, w_f],
        parameters: [
            w = 1.02, c = 0.08, lam = 0.3141592653589793, g = 9.81,
            rr = 0.3, mr = 2.0, irxx = 0.0603, iryy = 0.12,
            xb = 0.3, zb = -0.9, mb = 85.0, ibxx = 9.2, ibyy = 11.0, ibzz = 2.8, ibxz = 2.4,
            xh = 0.9, zh = -0.7, mh = 4.0, ihxx = 0.05892, ihyy = 0.06, ihzz = 0.00708, ihxz = -0.00756,
            rf = 0.35, mf = 3.0, ifxx = 0.1405, ifyy = 0.28,
        ],
        definitions: {
            let sl = lam.sin();
            let cl = lam.cos();
            // Rear wheel centre: the rear contact plus rr up the leaned wheel plane.
            let crx = x - rr * psi.sin() * phi.sin();
            let cry = y + rr * psi.cos() * phi.sin();
            let crz = -rr * phi.cos();
            // Rear frame mass centre (relative to the rear wheel centre in the reference).
            let cbx = crx + rot_x(psi, phi, theta, xb, 0.0, zb + rr);
            let cby = cry + rot_y(psi, phi, theta, xb, 0.0, zb + rr);
            let cbz = crz + rot_z(psi, phi, theta, xb, 0.0, zb + rr);
            // The steer axis's point on the ground in the reference, (w + c, 0, 0).
            let ax_x = crx + rot_x(psi, phi, theta, w + c, 0.0, rr);
            let ax_y = cry + rot_y(psi, phi, theta, w + c, 0.0, rr);
            let ax_z = crz + rot_z(psi, phi, theta, w + c, 0.0, rr);
            // Front frame mass centre: (xh - w - c, 0, zh) from that point, steered.
            let h1 = steer_x(delta, sl, cl, xh - w - c, zh);
            let h2 = steer_y(delta, sl, cl, xh - w - c, zh);
            let h3 = steer_z(delta, sl, cl, xh - w - c, zh);
            let chx = ax_x + rot_x(psi, phi, theta, h1, h2, h3);
            let chy = ax_y + rot_y(psi, phi, theta, h1, h2, h3);
            let chz = ax_z + rot_z(psi, phi, theta, h1, h2, h3);
            // Front wheel centre: (-c, 0, -rf) from that point, steered.
            let f1 = steer_x(delta, sl, cl, -c, -rf);
            let f2 = steer_y(delta, sl, cl, -c, -rf);
            let f3 = steer_z(delta, sl, cl, -c, -rf);
            let cfx = ax_x + rot_x(psi, phi, theta, f1, f2, f3);
            let cfy = ax_y + rot_y(psi, phi, theta, f1, f2, f3);
            let cfz = ax_z + rot_z(psi, phi, theta, f1, f2, f3);
            // The front axle in space, R_B S(δ) e_y with S(δ) e_y = (-sin δ cl, cos δ, sin δ sl).
            let afx = rot_x(psi, phi, theta, -delta.sin() * cl, delta.cos(), delta.sin() * sl);
            let afy = rot_y(psi, phi, theta, -delta.sin() * cl, delta.cos(), delta.sin() * sl);
            let afz = rot_z(psi, phi, theta, -delta.sin() * cl, delta.cos(), delta.sin() * sl);
            // From the front wheel centre to its lowest point: rf (e_z - afz af) / |...|.
            let nf = (1.0 - afz.powi(2)).sqrt();
            let pfx = -rf * afz * afx / nf;
            let pfy = -rf * afz * afy / nf;
            let pfz = rf * nf;
            // Rear frame angular velocity in its own axes: Ry(θ)ᵀ (φ', ψ' sin φ, ψ' cos φ) + θ' e_y.
            let wbx = theta.cos() * w_phi - theta.sin() * w_psi * phi.cos();
            let wby = w_psi * phi.sin() + w_theta;
            let wbz = theta.sin() * w_phi + theta.cos() * w_psi * phi.cos();
            // Front frame angular velocity in its own axes: S(δ)ᵀ ω_B + δ' s.
            let whx = unsteer_x(delta, sl, cl, wbx, wby, wbz) + w_delta * sl;
            let why = unsteer_y(delta, sl, cl, wbx, wby, wbz);
            let whz = unsteer_z(delta, sl, cl, wbx, wby, wbz) + w_delta * cl;
            // Front wheel angular velocity in space: ψ' e_z + φ' (cos ψ, sin ψ, 0) + θ' (yawed,
            // leaned e_y) + δ' R_B s + th_f' (front axle).
            let wfx = w_phi * psi.cos() - w_theta * psi.sin() * phi.cos()
                + w_delta * rot_x(psi, phi, theta, sl, 0.0, cl) + w_f * afx;
            let wfy = w_phi * psi.sin() + w_theta * psi.cos() * phi.cos()
                + w_delta * rot_y(psi, phi, theta, sl, 0.0, cl) + w_f * afy;
            let wfz = w_psi + w_theta * phi.sin()
                + w_delta * rot_z(psi, phi, theta, sl, 0.0, cl) + w_f * afz;
        },
        lagrangian: {
            let rear_wheel = 0.5 * mr * (dt(crx).powi(2) + dt(cry).powi(2) + dt(crz).powi(2))
                + 0.5 * irxx * (w_phi.powi(2) + (w_psi * phi.cos()).powi(2))
                + 0.5 * iryy * (w_psi * phi.sin() + w_r).powi(2);
            let rear_frame = 0.5 * mb * (dt(cbx).powi(2) + dt(cby).powi(2) + dt(cbz).powi(2))
                + 0.5 * (ibxx * wbx.powi(2) + ibyy * wby.powi(2) + ibzz * wbz.powi(2))
                + ibxz * wbx * wbz;
            let front_frame = 0.5 * mh * (dt(chx).powi(2) + dt(chy).powi(2) + dt(chz).powi(2))
                + 0.5 * (ihxx * whx.powi(2) + ihyy * why.powi(2) + ihzz * whz.powi(2))
                + ihxz * whx * whz;
            let front_wheel = 0.5 * mf * (dt(cfx).powi(2) + dt(cfy).powi(2) + dt(cfz).powi(2))
                + 0.5 * ifxx * (whx.powi(2) + whz.powi(2))
                + 0.5 * ifyy * (why + w_f).powi(2);
            // z is down: the potential is -g Σ m z.
            rear_wheel + rear_frame + front_frame + front_wheel
                + g * (mr * crz + mb * cbz + mh * chz + mf * cfz)
        },
        // The front wheel's lowest point is on the ground.
        holonomic: [cfz + pfz],
        // No slip: the material point of each wheel at its contact has no horizontal velocity.
        nonholonomic: [
            vx + rr * w_r * psi.cos(),
            vy + rr * w_r * psi.sin(),
            dt(cfx) + wfy * pfz - wfz * pfy,
            dt(cfy) + wfz * pfx - wfx * pfz,
        ],
    }
}

/// The linearization of the upright, straight-ahead motion: the lean and steer eigenvalues.
#[allow(dead_code)]
pub(crate) mod whipple {
    use super::Bicycle;
    use spark::nalgebra::{Complex, SMatrix};
    use spark::{GaussLobatto, Integrator, State, StepJacobian, TangentBasis};

    /// The method and step of the linearization: `GaussLobatto<S>` (order 2S) with step `H`.
    pub const S: usize = 8;
    /// The step (s).
    pub const H: f64 = 0.05;
    /// Meijaard et al. (2007), Table 2: the eigenvalues `(re, im)` at v = 0, 1, ..., 10 m/s,
    /// sorted by real part, then imaginary part.
    // The digits as printed, trailing zeros included.
    #[allow(clippy::excessive_precision)]
    pub const TABLE2: [[(f64, f64); 4]; 11] = [
        [(-5.53094371765393, 0.0), (-3.13164324790656, 0.0), (3.13164324790656, 0.0), (5.53094371765393, 0.0)],
        [(-7.11008014637442, 0.0), (-3.13423125066578, 0.0), (3.52696170990070, -0.80774027519930), (3.52696170990070, 0.80774027519930)],
        [(-8.67387984831735, 0.0), (-3.07158645641514, 0.0), (2.68234517512745, -1.68066296590675), (2.68234517512745, 1.68066296590675)],
        [(-10.35101467245920, 0.0), (-2.63366137253667, 0.0), (1.70675605663975, -2.31582447384325), (1.70675605663975, 2.31582447384325)],
        [(-12.15861426576447, 0.0), (-1.42944427361326, 0.0), (0.41325331521125, -3.07910818603206), (0.41325331521125, 3.07910818603206)],
        [(-14.07838969279822, 0.0), (-0.77534188219585, -4.46486771378823), (-0.77534188219585, 4.46486771378823), (-0.32286642900409, 0.0)],
        [(-16.08537123098030, 0.0), (-1.52644486584142, -5.87673060598709), (-1.52644486584142, 5.87673060598709), (-0.00406690076970, 0.0)],
        [(-18.15788466125262, 0.0), (-2.13875644258362, -7.19525913329805), (-2.13875644258362, 7.19525913329805), (0.10268170574766, 0.0)],
        [(-20.27940894394569, 0.0), (-2.69348683581097, -8.46037971396931), (-2.69348683581097, 8.46037971396931), (0.14327879765713, 0.0)],
        [(-22.43788559040858, 0.0), (-3.21675402252485, -9.69377351531791), (-3.21675402252485, 9.69377351531791), (0.15790184030917, 0.0)],
        [(-24.62459635017404, 0.0), (-3.72016840437287, -10.90681139476287), (-3.72016840437287, 10.90681139476287), (0.16105338653172, 0.0)],
    ];
    /// Table 2: the weave speed (the weave pair's real part crosses 0) and the capsize speed
    /// (the capsize eigenvalue crosses 0), m/s.
    pub const WEAVE_SPEED: f64 = 4.29238253634111;
    /// See [`WEAVE_SPEED`].
    pub const CAPSIZE_SPEED: f64 = 6.02426201538837;
    /// The paper's linearized equations `M q'' + v C1 q' + (g K0 + v² K2) q = 0` for
    /// `q = (lean, steer)`, with its printed coefficients (`M`, `C1`, `K0`, `K2`).
    pub const LINEARIZED: [[[f64; 2]; 2]; 4] = [
        [[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]],
        [[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]],
        [[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]],
        [[0.0, 76.59734589573222], [0.0, 2.65431523794604]],
    ];
    /// State-space indices `(δq, δv)` of lean, steer and their rates.
    pub const LEAN_STEER: [usize; 4] = [3, 5, 11, 13];
    /// Held at zero in the lean and steer directions: the rear contact, yaw, the wheel angles
    /// and the rear wheel's rate (the forward speed).
    const FIXED: [usize; 6] = [0, 1, 2, 6, 7, 14];

    /// Riding straight and upright at `speed` (m/s), forwards: every angle zero, the wheels
    /// rolling.
    pub fn upright(p: &Bicycle, speed: f64) -> State<8> {
        let mut v = [0.0; 8];
        v[0] = speed;
        v[6] = -speed / p.rr;
        v[7] = -speed / p.rf;
        State::new(0.0, [0.0; 8], v)
    }

    /// The one-step map of lean, steer and their rates at `speed`: `B = P J T` with `J` the
    /// step's exact Jacobian, `T` the four consistent tangent directions that move one of lean,
    /// steer and their rates and none of the cyclic coordinates nor the speed, and `P` the
    /// selection of lean, steer and their rates. The cyclic directions and the speed map into
    /// themselves, so the eigenvalues of `B` are those of the step on the tangent space
    /// without the six unit ones.
    pub fn lean_steer_map(p: Bicycle, speed: f64) -> Result<SMatrix<f64, 4, 4>, Box<dyn std::error::Error>> {
        let mut sim = Integrator::<Bicycle, GaussLobatto<S>>::new(p, H)?;
        let mut s = upright(&p, speed);
        let basis: TangentBasis<8, 10> = sim.tangent_basis::<8, 1, 4, 10>(&s)?;
        let t = SMatrix::<f64, 16, 10>::from_fn(|i, j| {
            if i < 8 {
                basis.q[(i, j)]
            } else {
                basis.v[(i - 8, j)]
            }
        });
        // Coefficients in the basis of the direction that moves exactly one of lean, steer and
        // their rates, and none of the fixed components.
        let picked: Vec<usize> = LEAN_STEER.iter().chain(FIXED.iter()).copied().collect();
        let pt = SMatrix::<f64, 10, 10>::from_fn(|i, j| t[(picked[i], j)]);
        let rhs = SMatrix::<f64, 10, 4>::from_fn(|i, j| if i == j { 1.0 } else { 0.0 });
        let coefficients = pt.lu().solve(&rhs)
            .ok_or("lean, steer and their rates do not parametrize the tangent space")?;
        let directions = t * coefficients;
        let j: StepJacobian<8, 0> = sim.step_with_jacobian(&mut s)?;
        let full = SMatrix::<f64, 16, 16>::from_fn(|r, c| match (r < 8, c < 8) {
            (true, true) => j.dq_dq[(r, c)],
            (true, false) => j.dq_dv[(r, c - 8)],
            (false, true) => j.dv_dq[(r - 8, c)],
            (false, false) => j.dv_dv[(r - 8, c - 8)],
        });
        let image = full * directions;
        Ok(SMatrix::<f64, 4, 4>::from_fn(|r, c| image[(LEAN_STEER[r], c)]))
    }

    /// The continuous-time lean and steer eigenvalues at `speed`: `ln(μ) / H` for the
    /// eigenvalues `μ` of the one-step map, sorted by real part, then imaginary part.
    pub fn eigenvalues(p: Bicycle, speed: f64) -> Result<[Complex<f64>; 4], Box<dyn std::error::Error>> {
        let b = lean_steer_map(p, speed)?;
        let mu = b.complex_eigenvalues();
        let mut out = [Complex::new(0.0, 0.0); 4];
        for (o, m) in out.iter_mut().zip(mu.iter()) {
            *o = Complex::new(m.re.hypot(m.im).ln() / H, m.im.atan2(m.re) / H);
        }
        sort(&mut out);
        Ok(out)
    }

    /// Sorted by real part, then imaginary part.
    fn sort(l: &mut [Complex<f64>; 4]) {
        l.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    }

    /// The eigenvalues of the paper's linearized equations ([`LINEARIZED`]) at `speed`: an
    /// independent reference, computed from the printed matrices.
    pub fn linearized_eigenvalues(speed: f64, g: f64) -> [Complex<f64>; 4] {
        let m2 = |k: usize| SMatrix::<f64, 2, 2>::from_fn(|i, j| LINEARIZED[k][i][j]);
        let m_inv = m2(0).try_inverse().unwrap_or_else(SMatrix::zeros);
        let stiffness = -m_inv * (m2(2) * g + m2(3) * speed * speed);
        let damping = -m_inv * m2(1) * speed;
        let a = SMatrix::<f64, 4, 4>::from_fn(|i, j| match (i < 2, j < 2) {
            (true, true) => 0.0,
            (true, false) => f64::from(u8::from(j - 2 == i)),
            (false, true) => stiffness[(i - 2, j)],
            (false, false) => damping[(i - 2, j - 2)],
        });
        let mut out = [Complex::new(0.0, 0.0); 4];
        for (o, l) in out.iter_mut().zip(a.complex_eigenvalues().iter()) {
            *o = *l;
        }
        sort(&mut out);
        out
    }

    /// The real part of the weave pair (the complex pair) at `speed` (for 1 ≤ speed ≤ 10).
    pub fn weave_real_part(p: Bicycle, speed: f64) -> Result<f64, Box<dyn std::error::Error>> {
        let l = eigenvalues(p, speed)?;
        let pair = l.iter().max_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        Ok(pair.map_or(f64::NAN, |c| c.re))
    }

    /// The capsize eigenvalue at `speed` (for 1 ≤ speed ≤ 10): the larger real one.
    pub fn capsize_eigenvalue(p: Bicycle, speed: f64) -> Result<f64, Box<dyn std::error::Error>> {
        let l = eigenvalues(p, speed)?;
        let real = l.iter().filter(|c| c.im.abs() < 1e-9).map(|c| c.re);
        Ok(real.fold(f64::NEG_INFINITY, f64::max))
    }

    /// A zero of `f` in `[a, b]` (a sign change) by the Illinois method, to the last bits.
    pub fn root(
        mut f: impl FnMut(f64) -> Result<f64, Box<dyn std::error::Error>>,
        mut a: f64,
        mut b: f64,
    ) -> Result<f64, Box<dyn std::error::Error>> {
        let (mut fa, mut fb) = (f(a)?, f(b)?);
        if fa.signum() == fb.signum() {
            return Err(format!("no sign change in [{a}, {b}]").into());
        }
        let mut side = 0;
        let mut previous = f64::NAN;
        for _ in 0..200 {
            let c = (a * fb - b * fa) / (fb - fa);
            let fc = f(c)?;
            if fc == 0.0 || c == previous {
                return Ok(c);
            }
            previous = c;
            if fc.signum() == fb.signum() {
                b = c;
                fb = fc;
                if side == 1 {
                    fa /= 2.0;
                }
                side = 1;
            } else {
                a = c;
                fa = fc;
                if side == -1 {
                    fb /= 2.0;
                }
                side = -1;
            }
        }
        Ok(0.5 * (a + b))
    }
}

/// A ride of the nonlinear model: from upright at `speed` with a lean rate `lean_rate`, `steps`
/// steps of `GaussLobatto<2>` with step `h`.
#[allow(dead_code)]
mod ride {
    use super::{whipple, Bicycle};
    use spark::{GaussLobatto, Integrator};

    /// What a ride shows.
    pub struct Ride {
        /// `(t, lean)` after every step.
        pub lean: Vec<(f64, f64)>,
        /// `(t, steer)` after every step.
        pub steer: Vec<(f64, f64)>,
        /// The largest holonomic and velocity-level residuals after any step.
        pub residual: (f64, f64),
        /// The largest |E − E0| / E0 over the ride.
        pub energy_error: f64,
        /// The forward speed (m/s) at the end, `-rr w_r`.
        pub final_speed: f64,
    }

    /// Rides from upright at `speed` with lean rate `lean_rate` (made consistent by projection).
    pub fn ride(
        p: Bicycle,
        speed: f64,
        lean_rate: f64,
        h: f64,
        steps: usize,
    ) -> Result<Ride, spark::Error> {
        let mut sim = Integrator::<Bicycle, GaussLobatto<2>>::new(p, h)?;
        let mut s = whipple::upright(&p, speed);
        s.v[3] = lean_rate;
        sim.project(&mut s)?;
        let e0 = sim.energy(&s);
        let mut out = Ride {
            lean: vec![(s.t, s.q[3])],
            steer: vec![(s.t, s.q[5])],
            residual: sim.constraint_residual(&s),
            energy_error: 0.0,
            final_speed: speed,
        };
        for _ in 0..steps {
            sim.step(&mut s)?;
            let (g, w) = sim.constraint_residual(&s);
            out.residual = (out.residual.0.max(g), out.residual.1.max(w));
            out.energy_error = out.energy_error.max(((sim.energy(&s) - e0) / e0).abs());
            out.lean.push((s.t, s.q[3]));
            out.steer.push((s.t, s.q[5]));
        }
        out.final_speed = -p.rr * s.v[6];
        Ok(out)
    }
}
