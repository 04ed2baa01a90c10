// A body and a joint declared twice.
spark::mechanics! {
    pub struct Model {
        bodies: {
            arm: Body { mass: 1.0 },
            arm: Body { mass: 2.0 },
        },
        joints: {
            shoulder: Revolute { parent: world, child: arm },
            shoulder: Prismatic { parent: world, child: arm },
        },
    }
}

fn main() {}
