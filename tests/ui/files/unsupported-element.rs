// An element that would change the dynamics and is not supported: a compile error with file, line and element.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/tendon.xml",
    }
}

fn main() {}
