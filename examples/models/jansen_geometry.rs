// The geometry of a leg of Theo Jansen's linkage, independent of the model (included with
// `include!` by examples/jansen.rs and tests/mechanisms/jansen.rs): the joints' positions at a crank
// angle by circle intersections on the leg's usual branch (as benches/reference/jansen.py), and
// forward kinematics from the hinge coordinates of tests/models/jansen_leg.xml and
// jansen_walker.xml (posed at crank angle 0). The holy numbers are centimetres; positions are
// metres, in the x-y plane.

#[allow(dead_code)]
mod linkage {
    /// Centimetres to metres.
    const SCALE: f64 = 0.01;
    /// The holy numbers a..m (tests/data/jansen.md), in centimetres.
    pub const A: f64 = 38.0;
    pub const B: f64 = 41.5;
    pub const C: f64 = 39.3;
    pub const D: f64 = 40.1;
    pub const E: f64 = 55.8;
    pub const F: f64 = 39.4;
    pub const G: f64 = 36.7;
    pub const H: f64 = 65.7;
    pub const I: f64 = 49.0;
    pub const J: f64 = 50.0;
    pub const K: f64 = 61.9;
    pub const L: f64 = 7.8;
    pub const M: f64 = 15.0;

    pub type P2 = [f64; 2];

    /// A leg's joints: the crank axle O, the fixed pivot P, the crank pin and the moving joints.
    #[derive(Clone, Copy, Debug)]
    pub struct Joints {
        pub o: P2,
        pub p: P2,
        pub pin: P2,
        pub upper: P2,
        pub back: P2,
        pub lower: P2,
        pub knee: P2,
        pub foot: P2,
    }

    fn sub(a: P2, b: P2) -> P2 {
        [a[0] - b[0], a[1] - b[1]]
    }

    fn add(a: P2, b: P2) -> P2 {
        [a[0] + b[0], a[1] + b[1]]
    }

    pub fn dist(a: P2, b: P2) -> f64 {
        let d = sub(a, b);
        d[0].hypot(d[1])
    }

    /// `v` turned by `t` about z.
    fn turn(t: f64, v: P2) -> P2 {
        let (s, c) = t.sin_cos();
        [c * v[0] - s * v[1], s * v[0] + c * v[1]]
    }

    /// The two intersections of the circles (p1, r1) and (p2, r2).
    fn meet(p1: P2, r1: f64, p2: P2, r2: f64) -> (P2, P2) {
        let d = sub(p2, p1);
        let len = d[0].hypot(d[1]);
        let along = (r1 * r1 - r2 * r2 + len * len) / (2.0 * len);
        let h = (r1 * r1 - along * along).sqrt();
        let u = [d[0] / len, d[1] / len];
        let mid = add(p1, [along * u[0], along * u[1]]);
        (
            add(mid, [-h * u[1], h * u[0]]),
            add(mid, [h * u[1], -h * u[0]]),
        )
    }

    fn pick(pair: (P2, P2), first: bool) -> P2 {
        if first {
            pair.0
        } else {
            pair.1
        }
    }

    /// The leg's joints at crank angle `theta` (from +x, counter-clockwise), in metres; a
    /// mirrored leg (its pivot P at x = +a) is the reflection of the leg at `π − theta`.
    pub fn pose(theta: f64, mirrored: bool) -> Joints {
        let t = if mirrored {
            std::f64::consts::PI - theta
        } else {
            theta
        };
        let o = [0.0, 0.0];
        let p = [-A, -L];
        let pin = [M * t.cos(), M * t.sin()];
        let up = meet(pin, J, p, B);
        let upper = pick(up, up.0[1] > up.1[1]);
        let bk = meet(upper, E, p, D);
        let back = pick(bk, bk.0[0] < bk.1[0]);
        let lw = meet(pin, K, p, C);
        let lower = pick(lw, lw.0[1] < lw.1[1]);
        let kn = meet(back, F, lower, G);
        let knee = pick(kn, kn.0[0] < kn.1[0]);
        let ft = meet(knee, H, lower, I);
        let foot = pick(ft, ft.0[1] < ft.1[1]);
        let s = if mirrored { -SCALE } else { SCALE };
        let m = |q: P2| [s * q[0], SCALE * q[1]];
        Joints {
            o: m(o),
            p: m(p),
            pin: m(pin),
            upper: m(upper),
            back: m(back),
            lower: m(lower),
            knee: m(knee),
            foot: m(foot),
        }
    }

    fn angle(from: P2, to: P2) -> f64 {
        (to[1] - from[1]).atan2(to[0] - from[0])
    }

    /// The hinge coordinates `[crank, bar_j, bar_k, triangle_bde, bar_f, bar_c, triangle_ghi]`
    /// (each body's angle relative to its parent, from the reference pose `r`) of the pose `x`.
    pub fn coordinates(r: &Joints, x: &Joints) -> [f64; 7] {
        let wrap = |a: f64| {
            (a + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI
        };
        let d = |a0: f64, a1: f64| wrap(a1 - a0);
        let crank = d(angle(r.o, r.pin), angle(x.o, x.pin));
        let j = d(angle(r.pin, r.upper), angle(x.pin, x.upper));
        let k = d(angle(r.pin, r.lower), angle(x.pin, x.lower));
        let bde = d(angle(r.p, r.upper), angle(x.p, x.upper));
        let f = d(angle(r.back, r.knee), angle(x.back, x.knee));
        let c = d(angle(r.p, r.lower), angle(x.p, x.lower));
        let ghi = d(angle(r.lower, r.knee), angle(x.lower, x.knee));
        [
            crank,
            wrap(j - crank),
            wrap(k - crank),
            bde,
            wrap(f - bde),
            c,
            wrap(ghi - c),
        ]
    }

    /// Forward kinematics along the two trees (from O and from P): the joints, and the three
    /// loop gaps (where bar j meets triangle bde, bar k meets bar c, bar f meets triangle ghi).
    pub fn forward(r: &Joints, q: &[f64; 7]) -> (Joints, [f64; 3]) {
        let [crank, j, k, bde, f, c, ghi] = *q;
        let pin = turn(crank, r.pin);
        let upper_j = add(pin, turn(crank + j, sub(r.upper, r.pin)));
        let lower_k = add(pin, turn(crank + k, sub(r.lower, r.pin)));
        let upper = add(r.p, turn(bde, sub(r.upper, r.p)));
        let back = add(r.p, turn(bde, sub(r.back, r.p)));
        let knee_f = add(back, turn(bde + f, sub(r.knee, r.back)));
        let lower = add(r.p, turn(c, sub(r.lower, r.p)));
        let knee = add(lower, turn(c + ghi, sub(r.knee, r.lower)));
        let foot = add(lower, turn(c + ghi, sub(r.foot, r.lower)));
        let joints = Joints {
            o: r.o,
            p: r.p,
            pin,
            upper,
            back,
            lower,
            knee,
            foot,
        };
        let gaps = [
            dist(upper_j, upper),
            dist(lower_k, lower),
            dist(knee_f, knee),
        ];
        (joints, gaps)
    }

    /// Every bar's length minus its holy number (metres): m, j, b, e, d, k, c, f, g, h, i.
    pub fn bar_errors(x: &Joints) -> [f64; 11] {
        let bars = [
            (x.o, x.pin, M),
            (x.pin, x.upper, J),
            (x.p, x.upper, B),
            (x.upper, x.back, E),
            (x.p, x.back, D),
            (x.pin, x.lower, K),
            (x.p, x.lower, C),
            (x.back, x.knee, F),
            (x.lower, x.knee, G),
            (x.knee, x.foot, H),
            (x.lower, x.foot, I),
        ];
        bars.map(|(a, b, len)| dist(a, b) - len * SCALE)
    }
}
