// Fields a body or a joint does not have, and an unknown joint kind.
spark::mechanics! {
    pub struct Model {
        bodies: {
            arm: Body { mass: 1.0, centre: [0.0, 0.0, -0.5] },
            hand: Body { mass: 1.0 },
        },
        joints: {
            shoulder: Revolute { parent: world, child: arm, axes: [0.0, 1.0, 0.0] },
            wrist: Hinge2 { parent: arm, child: hand },
        },
    }
}

fn main() {}
