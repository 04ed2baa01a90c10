// Malformed XML: the error gives the file's line.
spark::mechanics! {
    pub struct Model {
        urdf: "../../../../tests/ui/files/models/malformed.urdf",
    }
}

fn main() {}
