// A differential-drive robot written as a new user would: the body's position (x, y) on the
// floor and its heading `th`, and the angles `pr`, `pl` of its two wheels (radius `r`, half
// track `b`), driven by the wheel torques `tr`, `tl`. Rolling without slip is three
// nonholonomic constraints: no sideways motion of the axle, and each wheel's rim speed equal
// to the floor speed of its contact point. Shared by `examples/diff_drive.rs` and
// `examples/chain3d.rs` (its `-- jacobian` benchmark).

spark::mechanics! {
    /// A differential-drive robot (mass centre on the axle) with viscous wheel bearings.
    pub struct DiffDrive {
        coordinates: [x, y, th, pr, pl],
        velocities: [vx, vy, w, vr, vl],
        parameters: [m = 4.0, inertia = 0.1, iw = 0.002, r = 0.05, b = 0.15, c = 0.001],
        inputs: [tr, tl],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2)) + 0.5 * inertia * w.powi(2)
            + 0.5 * iw * (vr.powi(2) + vl.powi(2)),
        forces: [0.0, 0.0, 0.0, tr, tl],
        dissipation: 0.5 * c * (vr.powi(2) + vl.powi(2)),
        nonholonomic: [
            -th.sin() * vx + th.cos() * vy,
            th.cos() * vx + th.sin() * vy + b * w - r * vr,
            th.cos() * vx + th.sin() * vy - b * w - r * vl,
        ],
    }
}
