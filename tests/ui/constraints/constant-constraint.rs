// A constraint that simplifies to a constant constrains nothing, or cannot be satisfied;
// one without a coordinate cannot be satisfied by any motion.
spark::mechanics! {
    pub struct Body {
        coordinates: [x, y, z, w],
        velocities: [vx, vy, vz, vw],
        parameters: [m = 1.0, l = 1.0],
        lagrangian: 0.5 * m * (vx.powi(2) + vy.powi(2) + vz.powi(2) + vw.powi(2)),
        holonomic: [l - l, 0.0, 1.0, t - l],
    }
}

fn main() {}
