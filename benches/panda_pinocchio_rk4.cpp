// Pinocchio's side of the Panda's work-precision (issue 29, docs/performance.md): classic RK4 on
// q' = v, v' = aba(q, v, -damping * v) in C++, built by benches/panda_work_precision.py with
// g++ -O3 -march=native against the headers of the pip package `pin` (header-only use of the
// algorithms; the model is the one pinocchio.buildModelFromUrdf makes of
// tests/models/panda/panda.urdf, passed as Pinocchio's own text serialization).
//
//   panda_pinocchio_rk4 MODEL.txt check        stdin: lines of q (nq) and v (nv); prints aba
//   panda_pinocchio_rk4 MODEL.txt run H T q... v...
//       RK4 with step H from (q, v) to T; prints the least CPU seconds per simulated second over
//       at least 3 repetitions and 0.3 s (process CPU time), then the end q and v.
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/serialization.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>

static double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct Rk4 {
  const pinocchio::Model & model;
  pinocchio::Data data;
  Eigen::VectorXd tau, k1v, k2v, k3v, k4v, k2q, k3q, q2, v2;

  explicit Rk4(const pinocchio::Model & m)
  : model(m), data(m), tau(m.nv), k1v(m.nv), k2v(m.nv), k3v(m.nv), k4v(m.nv), k2q(m.nv), k3q(m.nv), q2(m.nq), v2(m.nv) {}

  // The acceleration at (q, v): ABA with the URDF's joint damping as a torque.
  template <typename Q, typename V, typename A>
  void accel(const Q & q, const V & v, A & a) {
    tau.noalias() = -model.damping.cwiseProduct(v);
    pinocchio::aba(model, data, q, v, tau);
    a = data.ddq;
  }

  // One classic RK4 step of (q, v) (all joints revolute: q' = v componentwise); no allocation.
  void step(Eigen::VectorXd & q, Eigen::VectorXd & v, double h) {
    accel(q, v, k1v);
    q2 = q + 0.5 * h * v;
    v2 = v + 0.5 * h * k1v;
    k2q = v2;
    accel(q2, v2, k2v);
    q2 = q + 0.5 * h * k2q;
    v2 = v + 0.5 * h * k2v;
    k3q = v2;
    accel(q2, v2, k3v);
    q2 = q + h * k3q;
    v2 = v + h * k3v;
    accel(q2, v2, k4v);
    q += (h / 6.0) * (v + 2.0 * k2q + 2.0 * k3q + v2);
    v += (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
  }
};

int main(int argc, char ** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.txt check | run H T q... v...\n", argv[0]);
    return 2;
  }
  pinocchio::Model model;
  model.loadFromText(argv[1]);
  const int nq = model.nq, nv = model.nv;
  std::cout.precision(17);
  std::cout << std::scientific;
  if (std::strcmp(argv[2], "check") == 0) {
    Rk4 rk(model);
    Eigen::VectorXd q(nq), v(nv), a(nv);
    for (;;) {
      for (int i = 0; i < nq; ++i)
        if (!(std::cin >> q[i])) return 0;
      for (int i = 0; i < nv; ++i) std::cin >> v[i];
      rk.accel(q, v, a);
      for (int i = 0; i < nv; ++i) std::cout << a[i] << (i + 1 < nv ? " " : "\n");
    }
  }
  if (std::strcmp(argv[2], "run") != 0 || argc != 5 + nq + nv) {
    std::fprintf(stderr, "bad arguments\n");
    return 2;
  }
  const double h = std::atof(argv[3]), t_end = std::atof(argv[4]);
  Eigen::VectorXd q0(nq), v0(nv);
  for (int i = 0; i < nq; ++i) q0[i] = std::atof(argv[5 + i]);
  for (int i = 0; i < nv; ++i) v0[i] = std::atof(argv[5 + nq + i]);
  const long steps = std::lround(t_end / h);
  Rk4 rk(model);
  Eigen::VectorXd q(nq), v(nv);
  double best = INFINITY, total = 0.0;
  for (int rep = 0; rep < 3 || (total < 0.3 && rep < 50); ++rep) {
    q = q0;
    v = v0;
    const double c0 = cpu_seconds();
    for (long n = 0; n < steps; ++n) rk.step(q, v, h);
    const double c = cpu_seconds() - c0;
    best = std::min(best, c);
    total += c;
  }
  std::cout << best / t_end;
  for (int i = 0; i < nq; ++i) std::cout << " " << q[i];
  for (int i = 0; i < nv; ++i) std::cout << " " << v[i];
  std::cout << "\n";
  return 0;
}
