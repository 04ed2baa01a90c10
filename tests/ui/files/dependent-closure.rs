// A two-link arm whose tip is held where the stretched arm puts it: the closure is singular there.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/dependent.xml",
    }
}

fn main() {}
