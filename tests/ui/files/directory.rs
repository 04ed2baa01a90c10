// A path that is a directory, not a regular file: refused without blocking.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models",
    }
}

fn main() {}
