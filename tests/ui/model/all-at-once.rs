// Every problem of a model is reported in one compilation, each on its own tokens.
spark::mechanics! {
    pub struct DoublePendulum {
        coordinates: [x1, y1, x2, y2],
        velocities: [vx1, vy1, vx2, vy2],
        parameters: [m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0, g = 9.81, m1 = 2.0],
        lagrangian: 0.5 * m1 * (vx1.powi(2) + vy1.powi(2)) + 0.5 * m2 * vx2.powi(2)
            - m1 * g * y1 - m2 * g * y2 + vy2,
        holonomic: [
            x1.powi(2) + y1.powi(2) - l1.powi(2),
            (x2 - x1).powi(2) + (y2 - y1).powi(2) - l2.powi(2) + vx1,
            l1 - l1,
        ],
        dampin: 0.1,
    }
}

fn main() {
    let _ = DoublePendulum { m1: 1.0, m2: 1.0, l1: 1.0, l2: 1.0, g: 9.81 };
}
