// A joint whose parent is not a body.
spark::mechanics! {
    pub struct Model {
        bodies: {
            arm: Body { mass: 1.0, com: [0.0, 0.0, -0.5] },
        },
        joints: {
            shoulder: Revolute { parent: torso, child: arm, axis: [0.0, 1.0, 0.0] },
        },
    }
}

fn main() {}
