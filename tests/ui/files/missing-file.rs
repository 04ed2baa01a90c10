// A model file that does not exist: the error names the path and the directory it is relative to.
spark::mechanics! {
    pub struct Model {
        urdf: "../../../../tests/ui/files/models/nowhere.urdf",
    }
}

fn main() {}
