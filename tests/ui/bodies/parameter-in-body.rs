// Bodies and joints are fixed when the model is compiled: a parameter cannot size them.
spark::mechanics! {
    pub struct Model {
        parameters: [m = 1.0],
        bodies: {
            arm: Body { mass: m, com: [0.0, 0.0, -0.5] },
        },
        joints: {
            shoulder: Revolute { parent: world, child: arm, axis: [0.0, 1.0, 0.0] },
        },
    }
}

fn main() {}
