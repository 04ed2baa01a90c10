"""Building C++ drivers against the pip package `pin` (Pinocchio's headers and libraries in its
`cmeel.prefix`), for the benchmarks that time Pinocchio in C++: panda_work_precision.py and
robots/aba_timing.py."""
import os
import subprocess

import pinocchio as pin


def cmeel_prefix():
    """The `cmeel.prefix` directory of the `pin` wheel (headers in include/, libraries in lib/)
    and the site-packages that holds it. `pin` 4.x installs Pinocchio's Python package inside
    it (site-packages/cmeel.prefix/lib/python3.X/site-packages/pinocchio), older wheels beside
    it (site-packages/pinocchio); both are found by walking up from the package."""
    d = os.path.dirname(os.path.abspath(pin.__file__))
    while d != os.path.dirname(d):
        if os.path.basename(d) == "cmeel.prefix":
            return d, os.path.dirname(d)
        if os.path.isdir(os.path.join(d, "cmeel.prefix")):
            return os.path.join(d, "cmeel.prefix"), d
        d = os.path.dirname(d)
    raise SystemExit(f"no cmeel.prefix above {pin.__file__}: pip install pin")


def newer(target, *sources):
    """Whether `target` exists and is newer than every source."""
    return os.path.exists(target) and all(os.path.getmtime(target) > os.path.getmtime(s) for s in sources)


def build(src, out):
    """Compiles `src` to `out` (unless `out` is newer) with g++ -O3 -march=native."""
    if newer(out, src):
        return out
    prefix, site = cmeel_prefix()
    # Eigen's headers: a cmeel wheel's, CasADi's copy, or Debian's libeigen3-dev.
    eigen = next((d for d in [os.path.join(prefix, "include", "eigen3"),
                              os.path.join(site, "casadi", "include", "eigen3"),
                              "/usr/include/eigen3"]
                  if os.path.isdir(d)), None)
    if eigen is None:
        raise SystemExit("no Eigen headers: pip install casadi, or apt-get install libeigen3-dev")
    # The definitions Pinocchio's CMake config passes to its users (pinocchioTargets.cmake);
    # without PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION the algorithms are compiled here, for
    # this CPU, not taken from the package's library.
    subprocess.run(["g++", "-O3", "-march=native", "-std=c++17", "-DNDEBUG", "-Wno-deprecated-declarations",
                    "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
                    "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
                    "-I", os.path.join(prefix, "include"), "-I", eigen, src, "-o", out,
                    "-L", os.path.join(prefix, "lib"), "-lboost_serialization",
                    f"-Wl,-rpath,{os.path.join(prefix, 'lib')}"], check=True)
    return out
