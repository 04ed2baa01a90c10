// The same loop closed twice: its rows are dependent at the reference configuration.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/dependent.xml",
    }
}

fn main() {}
