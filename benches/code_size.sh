#!/usr/bin/env bash
# Code size (and static stack frames) of one spark step for a Cortex-M4F (thumbv7em-none-eabihf).
#
#   bash benches/code_size.sh          (OPT=3 by default; OPT=s for size-optimised builds)
#   MODELS="chain3d10 chain3d40" SS=2 bash benches/code_size.sh    (a subset)
#
# For each chain N = 1, 2, 4, 8, 16 (examples/models/gen_chain.py), the seven-body model and
# the 3D chains of examples/models/chain3d.rs (`chain3dN`, sparse factors), and S = 1, 2, 3
# (the defaults of MODELS and SS), it generates under $WORK (default /tmp/spark-thumb) a `#![no_std]` staticlib whose
# only export is `extern "C" fn spark_step(t, q, v)`: one `Integrator::<Model,
# GaussLobatto<S>>::step`. Release profile with `lto = true`, `codegen-units = 1`,
# `panic = "abort"`, `opt-level = $OPT`: after LTO the crate's object holds exactly the code
# reachable from `spark_step` (model, step, LU, Newton; libm and core as needed). Reported:
#   text: .text bytes of that object;
#   soft-float helpers: how many distinct `__aeabi_d*` routines it calls (the M4F's FPU is
#             single precision; these come from compiler-builtins at link time and are not
#             counted in text);
#   largest frame: the biggest `sub sp, #imm` + `push` of any function in the object, a lower
#             bound of the step's stack use on the target (static, from the disassembly).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=${WORK:-/tmp/spark-thumb}
OPT=${OPT:-3}
TARGET=thumbv7em-none-eabihf
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/target-bench}
export CARGO_TERM_COLOR=never
MODELS=${MODELS:-"chain1 chain2 chain4 chain8 chain16 seven_body chain3d10 chain3d40"}
SS=${SS:-"1 2 3"}
NM=$(command -v llvm-nm || command -v nm)
OBJDUMP=$(command -v llvm-objdump || true)

mkdir -p "$WORK"
members=""
for m in $MODELS; do
    case $m in
        chain3d*) n=${m#chain3d}; ty="Chain3d$n"; dim=$((3 * n))
                printf 'include!("%s/examples/models/chain3d.rs");\nchain!(%s, %s);\n' \
                    "$ROOT" "$ty" "$n" >"$WORK/$m.rs" ;;
        chain*) n=${m#chain}; ty="Chain$n"; dim=$((2 * n))
                python3 "$ROOT/examples/models/gen_chain.py" "$n" >"$WORK/$m.rs" ;;
        seven_body) ty=SevenBody; dim=7; cp "$ROOT/examples/models/seven_body.rs" "$WORK/$m.rs" ;;
    esac
    for s in $SS; do
        d="$WORK/${m}_s$s"
        mkdir -p "$d/src"
        cat >"$d/Cargo.toml" <<EOF
[package]
name = "thumb_${m}_s$s"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
crate-type = ["staticlib"]

[dependencies]
spark = { path = "$ROOT" }
EOF
        cat >"$d/src/lib.rs" <<EOF
#![no_std]
#![allow(dead_code)]
include!("$WORK/$m.rs");

/// One step of ($s,$s)-Gauss-Lobatto SPARK with h = 0.01; 0 on success.
#[no_mangle]
pub extern "C" fn spark_step(t: &mut f64, q: &mut [f64; $dim], v: &mut [f64; $dim]) -> i32 {
    let Ok(mut sim) = spark::Integrator::<$ty, spark::GaussLobatto<$s>>::new($ty::default(), 0.01)
    else {
        return -1;
    };
    let mut s = spark::State::new(*t, *q, *v);
    if sim.step(&mut s).is_err() {
        return 1;
    }
    *t = s.t;
    q.copy_from_slice(s.q.as_slice());
    v.copy_from_slice(s.v.as_slice());
    0
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
EOF
        members="$members \"${m}_s$s\","
    done
done
cat >"$WORK/Cargo.toml" <<EOF
[workspace]
members = [$members ]
resolver = "2"

[profile.release]
lto = true
codegen-units = 1
panic = "abort"
opt-level = $( [ "$OPT" = s ] || [ "$OPT" = z ] && echo "\"$OPT\"" || echo "$OPT" )
EOF
[ -f "$WORK/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"

echo "== building $(echo $MODELS | wc -w) models x S = {$SS} for $TARGET (opt-level $OPT, lto)"
(cd "$WORK" && cargo build --release --offline --target "$TARGET" --workspace 2>&1 | tail -n 1)

echo
python3 - "$CARGO_TARGET_DIR/$TARGET/release" "$NM" "$OBJDUMP" $MODELS -- $SS <<'PY'
import os, re, subprocess, sys, tempfile
rel, nm, objdump = sys.argv[1:4]
rest = sys.argv[4:]
models, ss = rest[:rest.index('--')], rest[rest.index('--') + 1:]
run = lambda *a: subprocess.run(a, capture_output=True, text=True).stdout
print('| model | S | text bytes | soft-float f64 helpers called | largest frame bytes | biggest functions (bytes) |')
print('|---|---|---|---|---|---|')
for m in models:
    for s in ss:
        lib = f'{rel}/libthumb_{m}_s{s}.a'
        with tempfile.TemporaryDirectory() as x:
            subprocess.run(['ar', 'x', lib], cwd=x, check=True)
            obj = os.path.join(x, next(f for f in sorted(os.listdir(x)) if f'thumb_{m}_s{s}' in f))
            text = 0
            for line in run('readelf', '-S', '--wide', obj).splitlines():
                f = line.replace('[ ', '[').split()
                if len(f) > 5 and f[1].startswith('.text'):
                    text += int(f[5], 16)
            undef = sorted({l.split()[-1] for l in run(nm, '-u', obj).splitlines() if l.strip()})
            soft = [u for u in undef if u.startswith('__aeabi_d')]
            funcs = []
            for l in run(nm, '-S', '--size-sort', '--defined-only', '-C', obj).splitlines():
                f = l.split(maxsplit=3)
                if len(f) == 4 and f[2] in 'tT':
                    name = re.sub(r'::h[0-9a-f]{16}$', '', f[3])
                    name = re.sub(r'\$LT\$.*\$GT\$', '<..>', name)
                    funcs.append((int(f[1], 16), '::'.join(name.split('::')[-2:])))
            top = ', '.join(f'{n} ({b})' for b, n in sorted(funcs, reverse=True)[:3])
            frame = '-'
            if objdump:
                best = cur = k = 0
                for line in run(objdump, '-d', '--no-show-raw-insn', obj).splitlines():
                    if re.match(r'^[0-9a-f]+ <.*>:$', line):
                        best, cur, k = max(best, cur), 0, 0
                        continue
                    k += 1
                    if k > 12:  # the prologue is over
                        continue
                    mm = re.search(r'\s(v?push)(\.w)?\s+\{([^}]*)\}', line)
                    if mm:
                        cur += (8 if mm.group(1) == 'vpush' else 4) * len(mm.group(3).split(','))
                    mm = re.search(r'\ssub(\.w|w)?\s+sp, (sp, )?#(0x[0-9a-f]+|\d+)', line)
                    if mm:
                        cur += int(mm.group(3), 0)
                frame = max(best, cur)
            print(f'| {m} | {s} | {text} | {len(soft)} | {frame} | {top} |')
PY
