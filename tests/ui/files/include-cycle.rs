// A file that includes itself through another: an error naming the file and line, no hang.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/include_cycle.xml",
    }
}

fn main() {}
