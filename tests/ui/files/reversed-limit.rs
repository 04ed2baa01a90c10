// A `<limit>` with lower above upper: one error at its line. The model's stub keeps the
// file's two coordinates, so the code using it adds no error of its own.
spark::mechanics! {
    #[derive(Default)]
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/reversed_limit.urdf",
        actuated: all,
    }
}

fn main() -> Result<(), spark::Error> {
    let mut sim = spark::Integrator::<Robot, spark::GaussLobatto<2>>::new(Robot::default(), 0.01)?;
    let mut s = spark::State::new(0.0, [0.1, 0.2], [0.0, 0.0]);
    sim.step(&mut s)?;
    Ok(())
}
