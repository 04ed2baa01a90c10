// A loop closed twice (redundant rows), and one that can never close (an out-of-plane gap).
spark::mechanics! {
    pub struct Model {
        bodies: {
            crank: Body { mass: 1.0, com: [0.0, 0.0, 0.5] },
            coupler: Body { mass: 1.0, com: [1.5, 0.0, 0.0] },
            rocker: Body { mass: 1.0, com: [0.0, 0.0, 1.0] },
        },
        joints: {
            drive: Revolute { parent: world, child: crank, axis: [0.0, 1.0, 0.0] },
            knee: Revolute { parent: crank, child: coupler, origin: [0.0, 0.0, 1.0], axis: [0.0, 1.0, 0.0] },
            rock: Revolute { parent: world, child: rocker, origin: [3.5, 0.0, 0.0], axis: [0.0, 1.0, 0.0] },
            pin: Connect { body1: coupler, body2: rocker, anchor1: [3.0, 0.0, 0.0], anchor2: [0.0, 0.0, 2.0] },
            again: Connect { body1: coupler, body2: rocker, anchor1: [3.0, 0.0, 0.0], anchor2: [0.0, 0.0, 2.0] },
            apart: Connect { body1: crank, body2: rocker, anchor1: [0.0, 0.2, 1.0], anchor2: [0.0, 0.0, 1.0] },
        },
    }
}

fn main() {}
