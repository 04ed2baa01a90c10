// `floating_base` takes `true` or `false`.
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/models/double_pendulum.urdf",
        floating_base: yes,
    }
}

fn main() {}
