// Links in a cycle (`a` → `b` → `c` → `a`, so no root): one error naming them and their
// joints, and no "no root link" after it.
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/cycle.urdf",
    }
}

fn main() {}
