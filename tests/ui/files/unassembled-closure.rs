// A loop whose constant (out-of-plane) row is not zero: the file's reference configuration is not assembled.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/unassembled.xml",
    }
}

fn main() {}
