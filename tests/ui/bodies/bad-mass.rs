// A body without positive mass.
spark::mechanics! {
    pub struct Model {
        bodies: {
            arm: Body { mass: 0.0, com: [0.0, 0.0, -0.5] },
            hand: Body { mass: -1.0 },
            finger: Body { com: [0.1, 0.0, 0.0] },
        },
        joints: {
            shoulder: Revolute { parent: world, child: arm },
            wrist: Revolute { parent: arm, child: hand },
            knuckle: Revolute { parent: hand, child: finger },
        },
    }
}

fn main() {}
