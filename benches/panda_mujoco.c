/* MuJoCo's side of the Panda's work-precision (issue 29, docs/performance.md): mj_step in a C
 * loop, built by benches/panda_work_precision.py with gcc -O3 -march=native against the
 * headers and libmujoco of the pip package `mujoco`, on the copy of tests/models/panda/panda.urdf
 * that script writes for MuJoCo (and checks against spark's and Pinocchio's accelerations).
 *
 *   panda_mujoco MODEL.urdf INTEGRATOR H T q... v...
 *       INTEGRATOR: euler | rk4 | implicit | implicitfast. Steps from (q, v) to T with step H
 *       (contacts and constraints disabled: the model has no geoms and no joint limits);
 *       prints the least CPU seconds per simulated second over at least 3 repetitions and
 *       0.3 s (process CPU time), then the end qpos and qvel.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  char err[1000] = "";
  if (argc < 5) {
    fprintf(stderr, "usage: %s MODEL.urdf INTEGRATOR H T q... v...\n", argv[0]);
    return 2;
  }
  mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "load: %s\n", err);
    return 1;
  }
  if (argc != 5 + m->nq + m->nv) {
    fprintf(stderr, "expected %d state values\n", m->nq + m->nv);
    return 2;
  }
  if (!strcmp(argv[2], "euler")) m->opt.integrator = mjINT_EULER;
  else if (!strcmp(argv[2], "rk4")) m->opt.integrator = mjINT_RK4;
  else if (!strcmp(argv[2], "implicit")) m->opt.integrator = mjINT_IMPLICIT;
  else if (!strcmp(argv[2], "implicitfast")) m->opt.integrator = mjINT_IMPLICITFAST;
  else {
    fprintf(stderr, "unknown integrator %s\n", argv[2]);
    return 2;
  }
  m->opt.timestep = atof(argv[3]);
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
  const double t_end = atof(argv[4]);
  const long steps = lround(t_end / m->opt.timestep);
  mjData *d = mj_makeData(m);
  double best = INFINITY, total = 0.0;
  for (int rep = 0; rep < 3 || (total < 0.3 && rep < 50); ++rep) {
    mj_resetData(m, d);
    for (int i = 0; i < m->nq; ++i) d->qpos[i] = atof(argv[5 + i]);
    for (int i = 0; i < m->nv; ++i) d->qvel[i] = atof(argv[5 + m->nq + i]);
    const double c0 = cpu_seconds();
    for (long n = 0; n < steps; ++n) mj_step(m, d);
    const double c = cpu_seconds() - c0;
    best = c < best ? c : best;
    total += c;
  }
  printf("%.6e", best / t_end);
  for (int i = 0; i < m->nq; ++i) printf(" %.17e", d->qpos[i]);
  for (int i = 0; i < m->nv; ++i) printf(" %.17e", d->qvel[i]);
  printf("\n");
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
