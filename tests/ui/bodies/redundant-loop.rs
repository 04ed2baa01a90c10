// A loop closed twice (dependent rows), and a loop that can never close (an out-of-plane gap).
spark::mechanics! {
    pub struct Twice {
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
        },
    }
}

spark::mechanics! {
    pub struct Apart {
        bodies: {
            upper: Body { mass: 1.0, com: [0.0, 0.0, -0.5] },
            lower: Body { mass: 1.0, com: [0.0, 0.0, -0.5] },
        },
        joints: {
            shoulder: Revolute { parent: world, child: upper, axis: [0.0, 1.0, 0.0] },
            elbow: Revolute { parent: upper, child: lower, origin: [0.0, 0.0, -1.0], axis: [0.0, 1.0, 0.0] },
            tip: Connect { body1: lower, body2: world, anchor1: [0.0, 0.2, -1.0], anchor2: [1.0, 0.0, -1.0] },
        },
    }
}

fn main() {}
