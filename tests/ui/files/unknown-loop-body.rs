// A loop closure to a body that does not exist.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/unknown_body.xml",
    }
}

fn main() {}
