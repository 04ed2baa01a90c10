// A `.urdf` with a `xacro:` element (its namespace not even declared): the xacro error, not
// a malformed-XML one.
spark::mechanics! {
    pub struct Robot {
        urdf: "../../../../tests/ui/files/models/xacro_inside.urdf",
    }
}

fn main() {}
