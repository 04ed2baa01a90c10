// Pinocchio's side of the robots' timing (benches/robots/aba_timing.py, docs/performance.md):
// the least time per call of ABA and of one classic RK4 step on a free flyer
// (q' = v through pinocchio::integrate), built by aba_timing.py with g++ -O3 -march=native
// against the headers of the pip package `pin` (the algorithms compiled here, for this CPU).
//
//   pinocchio_aba MODEL.txt STATES.txt
//       MODEL.txt: Pinocchio's text serialization of the model; STATES.txt: per line q (nq),
//       v (nv) and tau (nv). Prints "aba NS" and "rk4 NS": nanoseconds per call, the least
//       over 7 rounds of at least 0.05 s of wall time each, over all the states.
#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/serialization.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <vector>

struct Sample {
  Eigen::VectorXd q, v, tau;
};

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
static double least_per_call(F && f) {
  double best = 1e300;
  for (int round = 0; round < 7; ++round) {
    long calls = 0;
    const double t0 = now();
    double t = t0;
    while (t - t0 < 0.05) {
      calls += f();
      t = now();
    }
    best = std::min(best, (t - t0) / calls);
  }
  return best;
}

int main(int argc, char ** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL.txt STATES.txt\n", argv[0]);
    return 2;
  }
  pinocchio::Model model;
  model.loadFromText(argv[1]);
  pinocchio::Data data(model);
  const int nq = model.nq, nv = model.nv;
  std::vector<Sample> samples;
  std::ifstream in(argv[2]);
  for (;;) {
    Sample s{Eigen::VectorXd(nq), Eigen::VectorXd(nv), Eigen::VectorXd(nv)};
    bool ok = true;
    for (int i = 0; i < nq && ok; ++i) ok = static_cast<bool>(in >> s.q[i]);
    for (int i = 0; i < nv && ok; ++i) ok = static_cast<bool>(in >> s.v[i]);
    for (int i = 0; i < nv && ok; ++i) ok = static_cast<bool>(in >> s.tau[i]);
    if (!ok) break;
    samples.push_back(s);
  }
  if (samples.empty()) {
    std::fprintf(stderr, "no states in %s\n", argv[2]);
    return 2;
  }
  double sink = 0.0;
  const double aba = least_per_call([&] {
    for (const Sample & s : samples) {
      pinocchio::aba(model, data, s.q, s.v, s.tau);
      sink += data.ddq[0];
    }
    return static_cast<long>(samples.size());
  });
  // One RK4 step of h = 1e-3 from each state, the torque held.
  const double h = 1e-3;
  Eigen::VectorXd q(nq), v(nv), q2(nq), v2(nv), k1(nv), k2(nv), k3(nv), k4(nv), dq(nv);
  Eigen::VectorXd kq2(nv), kq3(nv), kq4(nv);
  const double rk4 = least_per_call([&] {
    for (const Sample & s : samples) {
      q = s.q;
      v = s.v;
      pinocchio::aba(model, data, q, v, s.tau);
      k1 = data.ddq;
      v2 = v + 0.5 * h * k1;
      kq2 = v2;
      pinocchio::integrate(model, q, (0.5 * h) * v, q2);
      pinocchio::aba(model, data, q2, v2, s.tau);
      k2 = data.ddq;
      v2 = v + 0.5 * h * k2;
      kq3 = v2;
      pinocchio::integrate(model, q, (0.5 * h) * kq2, q2);
      pinocchio::aba(model, data, q2, v2, s.tau);
      k3 = data.ddq;
      v2 = v + h * k3;
      kq4 = v2;
      pinocchio::integrate(model, q, h * kq3, q2);
      pinocchio::aba(model, data, q2, v2, s.tau);
      k4 = data.ddq;
      dq = (h / 6.0) * (v + 2.0 * kq2 + 2.0 * kq3 + kq4);
      pinocchio::integrate(model, q, dq, q2);
      v += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
      sink += q2[0] + v[0];
    }
    return static_cast<long>(samples.size());
  });
  std::printf("aba %.1f\nrk4 %.1f\n", aba * 1e9, rk4 * 1e9);
  std::fprintf(stderr, "(checksum %g)\n", sink);
  return 0;
}
