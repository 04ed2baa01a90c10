// A body whose principal moments break the triangle inequality: the error names the body and the fix.
spark::mechanics! {
    pub struct Model {
        mjcf: "../../../../tests/ui/files/models/triangle.xml",
    }
}

fn main() {}
