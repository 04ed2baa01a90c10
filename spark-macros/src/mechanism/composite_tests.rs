//! The composite-rigid-body terms against the energies they come from, differentiated exactly
//! by hyper-dual numbers (`x + ε₁ ẋ + ε₂ x' + ε₁ε₂ ẋ'`, `ε₁² = ε₂² = 0`): the `ε₁ε₂` part of
//! `T − V` seeded along two variables is their second derivative, to round-off. The oracle is
//! [`kinematics::frames`] and [`kinematics::body_energies`] / [`kinematics::energies`] (the
//! Lagrangian every model is emitted from), which share no code with [`terms`].

use crate::mechanism::kinematics::{self, Alg, Layout, Numeric};
use crate::mechanism::tree::Mechanism;
use crate::mechanism::{read, Format};

use super::{applies, terms};

/// A hyper-dual number.
#[derive(Clone, Copy, Debug)]
struct H([f64; 4]);

/// Hyper-dual arithmetic at `(q, v)` with two seeded variables (`Some((is_velocity, index))`).
struct HyperDual {
    q: Vec<f64>,
    v: Vec<f64>,
    g: [f64; 3],
    seeds: [(bool, usize); 2],
}

impl HyperDual {
    fn var(&self, velocity: bool, i: usize, x: f64) -> H {
        let e1 = if self.seeds[0] == (velocity, i) {
            1.0
        } else {
            0.0
        };
        let e2 = if self.seeds[1] == (velocity, i) {
            1.0
        } else {
            0.0
        };
        H([x, e1, e2, 0.0])
    }
}

/// `f(x)` with `f'` and `f''` at `x.re`.
fn chain(x: &H, f: f64, d1: f64, d2: f64) -> H {
    let [_, a, b, ab] = x.0;
    H([f, d1 * a, d1 * b, d1 * ab + d2 * a * b])
}

impl Alg for HyperDual {
    type S = H;
    fn c(&mut self, x: f64) -> H {
        H([x, 0.0, 0.0, 0.0])
    }
    fn q(&mut self, i: usize) -> H {
        self.var(false, i, self.q[i])
    }
    fn v(&mut self, i: usize) -> H {
        self.var(true, i, self.v[i])
    }
    fn gravity(&mut self, k: usize) -> H {
        H([self.g[k], 0.0, 0.0, 0.0])
    }
    fn add(&mut self, a: &H, b: &H) -> H {
        H(std::array::from_fn(|i| a.0[i] + b.0[i]))
    }
    fn sub(&mut self, a: &H, b: &H) -> H {
        H(std::array::from_fn(|i| a.0[i] - b.0[i]))
    }
    fn mul(&mut self, a: &H, b: &H) -> H {
        let ([x, xa, xb, xab], [y, ya, yb, yab]) = (a.0, b.0);
        H([
            x * y,
            x * ya + xa * y,
            x * yb + xb * y,
            x * yab + xa * yb + xb * ya + xab * y,
        ])
    }
    fn sin(&mut self, a: &H) -> H {
        let x = a.0[0];
        chain(a, x.sin(), x.cos(), -x.sin())
    }
    fn cos(&mut self, a: &H) -> H {
        let x = a.0[0];
        chain(a, x.cos(), -x.sin(), -x.cos())
    }
    fn constant(&self, _: &H) -> Option<f64> {
        None
    }
}

/// A deterministic pseudo-random number in [-1, 1).
fn noise(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// `∂²/∂x∂y` of the bodies' `T − V` at `(q, v)`.
fn second(
    mech: &Mechanism,
    layout: &Layout,
    q: &[f64],
    v: &[f64],
    seeds: [(bool, usize); 2],
) -> f64 {
    let mut h = HyperDual {
        q: q.to_vec(),
        v: v.to_vec(),
        g: mech.gravity,
        seeds,
    };
    let frames = kinematics::frames(&mut h, mech, layout);
    let (t, pot) = kinematics::body_energies(&mut h, mech, &frames);
    t.0[3] - pot.0[3]
}

/// The largest difference of `(∂p/∂q) v` from the `lvq` matrix (itself checked against the
/// oracle) times `v`, relative to the largest entry.
fn worst_lvq_v_difference(mech: &Mechanism, states: usize) -> f64 {
    let layout = Layout::of(mech);
    let n = layout.n;
    let mut seed = 11u64;
    let mut worst = 0.0f64;
    for _ in 0..states {
        let q: Vec<f64> = (0..n).map(|_| 1.5 * noise(&mut seed)).collect();
        let v: Vec<f64> = (0..n).map(|_| 2.0 * noise(&mut seed)).collect();
        let mut num = Numeric {
            q,
            v: v.clone(),
            g: mech.gravity,
        };
        let (frames, axes) = kinematics::rooted_frames_and_axes(&mut num, mech, &layout);
        let t = terms(&mut num, mech, &layout, &frames, &axes);
        let want: Vec<f64> = t
            .lvq
            .iter()
            .map(|row| row.iter().zip(&v).map(|(l, vj)| l * vj).sum())
            .collect();
        let scale = want.iter().fold(1e-300f64, |a, x| a.max(x.abs()));
        for (g, o) in t.lvq_v.iter().zip(&want) {
            worst = worst.max((g - o).abs() / scale);
        }
    }
    worst
}

/// The largest difference of each of the three matrices from the oracle, relative to the
/// matrix's largest entry, over `states` random states.
fn worst_differences(mech: &Mechanism, states: usize) -> [f64; 3] {
    let layout = Layout::of(mech);
    let n = layout.n;
    let mut seed = 7u64;
    let mut worst = [0.0f64; 3];
    for _ in 0..states {
        let q: Vec<f64> = (0..n).map(|_| 1.5 * noise(&mut seed)).collect();
        let v: Vec<f64> = (0..n).map(|_| 2.0 * noise(&mut seed)).collect();
        let mut num = Numeric {
            q: q.clone(),
            v: v.clone(),
            g: mech.gravity,
        };
        let (frames, axes) = kinematics::rooted_frames_and_axes(&mut num, mech, &layout);
        let t = terms(&mut num, mech, &layout, &frames, &axes);
        for (w, (m, seeds)) in worst.iter_mut().zip([
            (&t.mass, [true, true]),
            (&t.lvq, [true, false]),
            (&t.lqq, [false, false]),
        ]) {
            let scale = m.iter().flatten().fold(1e-300f64, |a, x| a.max(x.abs()));
            for (i, row) in m.iter().enumerate() {
                for (j, got) in row.iter().enumerate() {
                    let oracle = second(mech, &layout, &q, &v, [(seeds[0], i), (seeds[1], j)]);
                    let d = (got - oracle).abs() / scale;
                    if d > 1e-12 && std::env::var("COMPOSITE_DEBUG").is_ok() {
                        eprintln!("{seeds:?} ({i}, {j}): {got} against {oracle}");
                    }
                    *w = w.max(d);
                }
            }
        }
    }
    worst
}

/// Asserts the three matrices and `(∂p/∂q) v` within 1e-12 of the oracle at `states` states.
fn assert_second_derivatives(mech: &Mechanism, states: usize) {
    let d = worst_differences(mech, states);
    assert!(d.iter().all(|d| *d < 1e-12), "relative differences {d:?}");
    let d = worst_lvq_v_difference(mech, states);
    assert!(d < 1e-12, "lvq v differs by {d:e}");
}

fn model(path: &str, format: Format) -> Mechanism {
    let full = format!("{}/../tests/models/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    read(format, &text).unwrap_or_else(|e| panic!("{full}: {:?}", e.list[0].msg))
}

#[test]
fn composite_terms_are_the_second_derivatives_of_the_energies() {
    let cases = [
        ("panda/panda.urdf", Format::Urdf),
        ("ur5/ur5_robot.urdf", Format::Urdf),
        ("double_pendulum.urdf", Format::Urdf),
        ("mjcf_arm.xml", Format::Mjcf),
        ("four_bar.xml", Format::Mjcf),
        ("jansen_walker.xml", Format::Mjcf),
        ("delta.xml", Format::Mjcf),
        ("welded.xml", Format::Mjcf),
    ];
    let mut tested = 0;
    for (path, format) in cases {
        let mech = model(path, format);
        if !applies(&mech) {
            continue;
        }
        tested += 1;
        let d = worst_differences(&mech, 3);
        assert!(
            d.iter().all(|d| *d < 1e-12),
            "{path}: relative differences {d:?}"
        );
    }
    assert!(tested >= 6, "only {tested} models without quaternions");
}

#[test]
fn composite_terms_of_a_chain_with_every_joint_feature() {
    // The growth benchmarks' chain (spark-macros/benches/expansion.rs), 9 links, with slides,
    // off-origin axes, armature, gravity compensation and a branch.
    let mut text = String::from("<robot name=\"chain\"><link name=\"l0\"/>");
    for k in 1..=9 {
        let kind = if k % 3 == 0 { "prismatic" } else { "revolute" };
        let parent = if k == 7 { 3 } else { k - 1 };
        text +=
            &format!(
            "<link name=\"l{k}\"><inertial><origin xyz=\"0.02 0.01 0.15\" rpy=\"0.1 0.2 0.3\"/>\
             <mass value=\"1.5\"/><inertia ixx=\"0.02\" ixy=\"0.001\" ixz=\"-0.002\" \
             iyy=\"0.025\" iyz=\"0.003\" izz=\"0.015\"/></inertial></link>\
             <joint name=\"j{k}\" type=\"{kind}\"><parent link=\"l{parent}\"/>\
             <child link=\"l{k}\"/><origin xyz=\"0 0.05 0.3\" rpy=\"{} 0 0.2\"/>\
             <axis xyz=\"0.3 0.4 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>\
             </joint>",
            if k % 2 == 0 { "1.5707963" } else { "-1.5707963" }
        );
    }
    text += "</robot>";
    let mech = read(Format::Urdf, &text).unwrap();
    assert_second_derivatives(&mech, 3);
}

#[test]
fn mjcf_armature_slides_and_gravity_compensation() {
    let text = r#"<mujoco><worldbody>
      <body name="a" pos="0.1 0.2 0.3" euler="10 20 30" gravcomp="0.3">
        <joint name="h1" type="hinge" axis="1 1 0" pos="0.05 0 0.1" armature="0.1" stiffness="2"/>
        <geom type="box" size="0.1 0.2 0.05" mass="1.2"/>
        <body name="b" pos="0.3 0.1 -0.2">
          <joint name="s1" type="slide" axis="0 1 1"/>
          <joint name="h2" type="hinge" axis="0 0 1" pos="0 0.1 0" armature="0.05"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0.1" size="0.03" mass="0.7"/>
          <body name="c" pos="0 0.2 0.1">
            <joint name="h3" type="hinge" axis="0 1 0" pos="0.1 0 0"/>
            <geom type="sphere" size="0.05" mass="0.4" pos="0.1 0.1 0"/>
          </body>
        </body>
        <body name="d" pos="0 -0.2 0">
          <joint name="h4" type="hinge" axis="1 0 0"/>
          <geom type="box" size="0.05 0.05 0.2" mass="0.5"/>
        </body>
      </body>
    </worldbody></mujoco>"#;
    let mech = read(Format::Mjcf, text).unwrap_or_else(|e| panic!("{:?}", e.list[0].msg));
    assert_second_derivatives(&mech, 4);
}

#[test]
fn floating_trees_seen_from_their_roots() {
    // A URDF on a free flyer (`floating_base: true`: the free joint placed at the root link),
    // at states whose quaternions are off the unit sphere: the chain rule is exact there too.
    let full = format!(
        "{}/../tests/models/floating_branch.urdf",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&full).unwrap();
    let options = crate::mechanism::urdf::Options {
        floating_base: true,
    };
    let mech = crate::mechanism::urdf::read_robot(&text, options)
        .unwrap_or_else(|e| panic!("{:?}", e.list[0].msg))
        .mechanism;
    assert!(applies(&mech));
    assert_second_derivatives(&mech, 3);

    // MJCF: a free body placed and turned in the world (its free joint absolute), with
    // armature, gravity compensation, a slide and branches; a second free body with no
    // children; and a fixed arm beside them (three trees, no coupling between them).
    let text = r#"<mujoco><worldbody>
      <body name="base" pos="0.3 -0.2 0.8" euler="20 -10 40" gravcomp="0.2">
        <freejoint name="root"/>
        <geom type="box" size="0.2 0.1 0.05" mass="3.1" pos="0.01 0.02 -0.01"/>
        <body name="a" pos="0.2 0.1 0" euler="0 30 0">
          <joint name="h1" type="hinge" axis="0 1 0" pos="0 0 0.05" armature="0.02"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.6"/>
          <body name="b" pos="0 0 -0.3">
            <joint name="s1" type="slide" axis="0.2 0 1"/>
            <joint name="h2" type="hinge" axis="1 0 1" pos="0.02 0 0"/>
            <geom type="sphere" size="0.05" mass="0.3" pos="0.05 0 -0.1"/>
          </body>
        </body>
        <body name="c" pos="-0.2 0 0">
          <joint name="h3" type="hinge" axis="0 0 1" stiffness="3"/>
          <geom type="box" size="0.05 0.1 0.02" mass="0.4" pos="0 0.1 0"/>
        </body>
      </body>
      <body name="ball" pos="1 1 1">
        <freejoint/>
        <geom type="ellipsoid" size="0.1 0.2 0.3" mass="0.8" pos="0.1 0 0"/>
      </body>
      <body name="arm" pos="0 1 0.5">
        <joint name="h4" type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.5"/>
      </body>
    </worldbody></mujoco>"#;
    let mech = read(Format::Mjcf, text).unwrap_or_else(|e| panic!("{:?}", e.list[0].msg));
    assert!(applies(&mech));
    assert_second_derivatives(&mech, 4);
}

#[test]
fn ball_joints_and_free_joints_below_the_root_keep_the_hessians() {
    let ball = r#"<mujoco><worldbody><body name="a">
        <joint type="ball"/><geom type="sphere" size="0.1" mass="1" pos="0 0 -0.3"/>
      </body></worldbody></mujoco>"#;
    let mech = read(Format::Mjcf, ball).unwrap_or_else(|e| panic!("{:?}", e.list[0].msg));
    assert!(!applies(&mech));
    let hinge_then_free = r#"<mujoco><worldbody><body name="a">
        <freejoint/><geom type="sphere" size="0.1" mass="1"/>
        <body name="b" pos="0 0 -0.3"><joint type="ball"/>
          <geom type="sphere" size="0.1" mass="1"/></body>
      </body></worldbody></mujoco>"#;
    let mech =
        read(Format::Mjcf, hinge_then_free).unwrap_or_else(|e| panic!("{:?}", e.list[0].msg));
    assert!(!applies(&mech));
}

#[test]
fn a_floating_joint_placed_and_turned() {
    // A URDF `floating` joint from the world link with an offset and a rotation in its origin
    // (a free joint that is not absolute: its coordinates are in the turned axes).
    let text = r#"<robot name="placed"><link name="world"/>
      <joint name="float" type="floating"><parent link="world"/><child link="base"/>
        <origin xyz="0.1 -0.2 0.5" rpy="0.3 -0.4 0.7"/></joint>
      <link name="base"><inertial><origin xyz="0.02 0.01 -0.03" rpy="0.1 0.2 0.3"/>
        <mass value="2.5"/><inertia ixx="0.03" ixy="0.002" ixz="-0.001" iyy="0.04" iyz="0.003"
        izz="0.05"/></inertial></link>
      <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
        <origin xyz="0.1 0 0.05" rpy="0 0.5 0"/><axis xyz="0 1 0.2"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <link name="arm"><inertial><origin xyz="0 0 -0.1"/><mass value="0.7"/>
        <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.005" iyz="0" izz="0.001"/></inertial></link>
    </robot>"#;
    let mech = read(Format::Urdf, text).unwrap_or_else(|e| panic!("{:?}", e.list[0].msg));
    assert!(applies(&mech));
    assert_second_derivatives(&mech, 4);
}
