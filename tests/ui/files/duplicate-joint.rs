// A joint name used twice: one error at the second.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/duplicate_joint.xml",
    }
}

fn main() {}
