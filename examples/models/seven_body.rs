// Andrews' squeezing mechanism (Small 2011, thesis §8.3.4; Hairer-Wanner II §VII.7), written as
// a Lagrangian T = ½ vᵀ M(q) v − U(q) with six holonomic loop-closure constraints.
// Constants: thesis Table 8.3 (they agree with the IVP test set "andrews").
// Included by examples/seven_body.rs, tests/suite/seven_body.rs and benches/steps.rs.

spark::mechanics! {
    /// Andrews' squeezing mechanism: seven rigid bodies, a spring and a constant drive torque.
    pub struct SevenBody {
        coordinates: [beta, theta, gamma, phi, delta, omega, epsilon],
        velocities: [vbeta, vtheta, vgamma, vphi, vdelta, vomega, vepsilon],
        parameters: [
            m1 = 0.04325, m2 = 0.00365, m3 = 0.02373, m4 = 0.00706, m5 = 0.07050, m6 = 0.00706, m7 = 0.05498,
            i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5, i6 = 5.667e-7, i7 = 1.912e-5,
            d = 0.028, da = 0.0115, e = 0.02, ea = 0.01421, zf = 0.02, fa = 0.01421, rr = 0.007, ra = 0.00092,
            ss = 0.035, sa = 0.01874, sb = 0.01043, sc = 0.018, sd = 0.02, zt = 0.04, ta = 0.02308, tb = 0.00916,
            u = 0.04, ua = 0.01228, ub = 0.00449, xa = -0.06934, ya = -0.00227, xb = -0.03635, yb = 0.03273,
            xc = 0.014, yc = 0.072, c0 = 4530.0, l0 = 0.07785, mom = 0.033,
        ],
        definitions: {
            // Mass matrix entries (thesis §8.3.4; symmetric, the rest zero).
            let m11 = m1 * ra.powi(2) + m2 * (rr.powi(2) - 2.0 * da * rr * theta.cos() + da.powi(2)) + i1 + i2;
            let m21 = m2 * (da.powi(2) - da * rr * theta.cos()) + i2;
            let m22 = m2 * da.powi(2) + i2;
            let m33 = m3 * (sa.powi(2) + sb.powi(2)) + i3;
            let m44 = m4 * (e - ea).powi(2) + i4;
            let m54 = m4 * ((e - ea).powi(2) + zt * (e - ea) * phi.sin()) + i4;
            let m55 = m4 * (zt.powi(2) + 2.0 * zt * (e - ea) * phi.sin() + (e - ea).powi(2))
                + m5 * (ta.powi(2) + tb.powi(2)) + i4 + i5;
            let m66 = m6 * (zf - fa).powi(2) + i6;
            let m76 = m6 * ((zf - fa).powi(2) - u * (zf - fa) * omega.sin()) + i6;
            let m77 = m6 * ((zf - fa).powi(2) - 2.0 * u * (zf - fa) * omega.sin() + u.powi(2))
                + m7 * (ua.powi(2) + ub.powi(2)) + i6 + i7;
            // Spring between the point D of body 3 and the fixed point C.
            let xd = sd * gamma.cos() + sc * gamma.sin() + xb;
            let yd = sd * gamma.sin() - sc * gamma.cos() + yb;
            let lang = ((xd - xc).powi(2) + (yd - yc).powi(2)).sqrt();
            // The common part of the loop-closure constraints.
            let cx = rr * beta.cos() - d * (beta + theta).cos();
            let cy = rr * beta.sin() - d * (beta + theta).sin();
        },
        lagrangian: {
            let kinetic = 0.5 * (m11 * vbeta.powi(2) + 2.0 * m21 * vbeta * vtheta + m22 * vtheta.powi(2)
                + m33 * vgamma.powi(2) + m44 * vphi.powi(2) + 2.0 * m54 * vphi * vdelta
                + m55 * vdelta.powi(2) + m66 * vomega.powi(2) + 2.0 * m76 * vomega * vepsilon
                + m77 * vepsilon.powi(2));
            let potential = -mom * beta + 0.5 * c0 * (lang - l0).powi(2);
            kinetic - potential
        },
        holonomic: [
            cx - ss * gamma.sin() - xb,
            cy + ss * gamma.cos() - yb,
            cx - e * (phi + delta).sin() - zt * delta.cos() - xa,
            cy + e * (phi + delta).cos() - zt * delta.sin() - ya,
            cx - zf * (omega + epsilon).cos() - u * epsilon.sin() - xa,
            cy - zf * (omega + epsilon).sin() + u * epsilon.cos() - ya,
        ],
    }
}

/// Consistent initial coordinates (the test set's, digits as printed; the velocities are zero).
#[allow(dead_code, clippy::excessive_precision)]
pub const Q0: [f64; 7] = [
    -0.0617138900142764496358948458001,
    0.0,
    0.455279819163070380255912382449,
    0.222668390165885884674473185609,
    0.487364979543842550225598953530,
    -0.222668390165885884674473185609,
    1.23054744454982119249735015568,
];

/// q(0.03) of the IVP test set (PSIDE, rtol = atol = 1e-14).
#[allow(dead_code)]
pub const Q_REF: [f64; 7] = [
    15.81077119629904,
    -15.75637105984298,
    0.04082224013073101,
    -0.5347301163226948,
    0.5244099658805304,
    0.5347301163226948,
    1.048080741042263,
];
