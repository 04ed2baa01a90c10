// A link that no joint connects to the root.
spark::mechanics! {
    pub struct Model {
        urdf: "../../../../tests/ui/files/models/disconnected.urdf",
    }
}

fn main() {}
