// A joint that moves nothing with mass or inertia.
spark::mechanics! {
    pub struct Model {
        urdf: "../../../../tests/ui/files/models/massless.urdf",
    }
}

fn main() {}
