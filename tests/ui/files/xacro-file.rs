// A xacro file: the error says to run `xacro` first.
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/arm.urdf.xacro",
    }
}

fn main() {}
