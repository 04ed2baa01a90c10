// `floating_base` with an MJCF model: refused (MJCF writes `<freejoint/>` itself).
spark::mechanics! {
    pub struct Arm {
        mjcf: "../../../../tests/models/mjcf_arm.xml",
        floating_base: true,
    }
}

fn main() {}
