// A cycle of links beside the tree: the cycle is the one error.
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/cycle_apart.urdf",
    }
}

fn main() {}
