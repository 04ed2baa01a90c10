// Links in a cycle (`a` → `b` → `a`): one error naming them and their joints, nothing more
// (no "no root", no follow-on error in the code below).
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/cycle.urdf",
    }
}

fn main() {}
