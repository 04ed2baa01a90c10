// A value that is not a finite number: an error naming the attribute.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/not_finite.xml",
    }
}

fn main() {}
