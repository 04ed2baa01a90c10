// Mimic joints that follow each other in a cycle: refused.
spark::mechanics! {
    pub struct Model {
        urdf: "../../../../tests/ui/files/models/mimic_cycle.urdf",
    }
}

fn main() {}
