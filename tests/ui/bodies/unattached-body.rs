// A body no joint attaches, and a chain of parents that never reaches the world.
spark::mechanics! {
    pub struct Model {
        bodies: {
            arm: Body { mass: 1.0 },
            stray: Body { mass: 1.0 },
            left: Body { mass: 1.0 },
            right: Body { mass: 1.0 },
        },
        joints: {
            shoulder: Revolute { parent: world, child: arm },
            a: Revolute { parent: right, child: left },
            b: Revolute { parent: left, child: right },
        },
    }
}

fn main() {}
