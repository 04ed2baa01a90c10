//! spark on a Cortex-M4F (`thumbv7em-none-eabihf`) or, built with `-C target-cpu=cortex-m7 -C
//! target-feature=+fp64`, a Cortex-M7 with a double-precision FPU: the runs of
//! [`spark_embedded::scenario`], printed over semihosting. Runs under QEMU's `mps2-an386`
//! board (M4F) or `mps2-an500` (M7): `cargo run --release` (the M4F; the runner is in
//! `.cargo/config.toml`), or `bash run.sh`, which builds and runs both and compares each output
//! with the host example's.
//!
//! Besides the scenario's lines it prints, as `#` comment lines that the comparison skips, the
//! emulator's CPU time of each run (semihosting `SYS_CLOCK`, centiseconds), each run's stack
//! high-water mark and, for the NMPC hold, the instructions and the stack of every control
//! period ([`icount`], [`stack::below_here`]).
#![no_std]
#![no_main]

use core::fmt::Write;
use core::panic::PanicInfo;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio, syscall};
use spark_embedded::scenario::{self, NmpcHold, RunError, NMPC_PERIODS};

#[entry]
fn main() -> ! {
    let counter = cortex_m::Peripherals::take().map(|p| icount::Counter::new(p.SYST));
    let status = match (hio::hstdout(), counter) {
        (Ok(mut out), Some(mut counter)) => match run(&mut out, &mut counter) {
            Ok(()) => debug::EXIT_SUCCESS,
            Err(e) => {
                let _ = writeln!(out, "error: {e}");
                debug::EXIT_FAILURE
            }
        },
        _ => debug::EXIT_FAILURE,
    };
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}

fn run(out: &mut hio::HostStream, counter: &mut icount::Counter) -> Result<(), RunError> {
    // Each run on a freshly painted stack: its own high-water mark.
    let mut highest = 0;
    let mut measured = |out: &mut hio::HostStream,
                        name: &str,
                        f: fn(&mut hio::HostStream) -> Result<scenario::Summary, RunError>|
     -> Result<(), RunError> {
        stack::paint();
        let t0 = clock_cs();
        let summary = f(out)?;
        let t1 = clock_cs();
        let used = stack::high_water();
        highest = highest.max(used);
        writeln!(
            out,
            "# timing {name} steps {} cs {}",
            summary.steps,
            t1 - t0
        )?;
        writeln!(out, "# stack {name} bytes {used}")?;
        Ok(())
    };
    measured(out, "pendulum", scenario::pendulum)?;
    measured(out, "double_pendulum", scenario::double_pendulum)?;
    measured(out, "cartpole", scenario::cartpole)?;
    measured(out, "chain3d", scenario::chain3d)?;
    // One chain step alone (the run above also projects its start and evaluates residuals).
    stack::paint();
    let z = scenario::chain3d_step()?;
    let used = stack::high_water();
    writeln!(out, "# stack chain3d_one_step bytes {used}")?;
    writeln!(out, "chain3d_one_step done z {z:.16e}")?;
    stack::paint();
    scenario::cartpole_jacobian(out)?;
    let used = stack::high_water();
    writeln!(out, "# stack cartpole_jacobian bytes {used}")?;
    writeln!(out, "# stack high-water mark bytes {}", highest.max(used))?;
    nmpc(out, counter)?;
    Ok(())
}

/// The NMPC hold ([`scenario::cartpole_nmpc`]), with the instructions and the stack of its
/// first plan (solved to convergence, [`NmpcHold::plan`]) and of every control period
/// ([`NmpcHold::control`]: the SQP-RTI preparation and feedback) measured around the
/// calls, apart from the printing and the plant.
fn nmpc(out: &mut hio::HostStream, counter: &mut icount::Counter) -> Result<(), RunError> {
    // The counter's check: a loop of a known number of instructions.
    let (loop_instructions, counted) = counter.calibrate();
    writeln!(
        out,
        "# icount calibration loop instructions {loop_instructions} counted {}",
        counted.unwrap_or(0)
    )?;
    // One step of the prediction model, plain and with its linearization: the counts of ten
    // steps less the count of none (building the integrator, the first basis), over ten.
    for (name, linearize) in [("step", false), ("linearize", true)] {
        let ((none, c0), (ten, c10)) = (
            counter.count(|| scenario::nmpc_model_steps(0, linearize)),
            counter.count(|| scenario::nmpc_model_steps(10, linearize)),
        );
        none?;
        ten?;
        let per = c10.zip(c0).map_or(-1, |(a, b)| (a as i64 - b as i64) / 10);
        writeln!(out, "# nmpc model {name} instructions {per}")?;
    }
    writeln!(
        out,
        "# nmpc workspace bytes {} hold bytes {}",
        core::mem::size_of::<scenario::HoldNmpc>(),
        core::mem::size_of::<NmpcHold>()
    )?;
    let counter = core::cell::RefCell::new(counter);
    // The controller's workspace, here in this frame.
    let mut mpc = scenario::nmpc_workspace();
    let mut plan = (None, 0);
    let mut periods = [(None, 0, 0); NMPC_PERIODS as usize];
    let mut k = 0;
    // The deepest stack of the measured calls, counted from the top of the stack: the NMPC
    // run's RAM (the workspace lives in this frame).
    let deepest = core::cell::Cell::new(0);
    let t0 = clock_cs();
    scenario::cartpole_nmpc(
        out,
        &mut mpc,
        |hold| {
            let ((result, instructions), stack) =
                stack::below_here(|| counter.borrow_mut().count(|| hold.plan()));
            let (stack, depth) = stack?;
            deepest.set(deepest.get().max(depth));
            plan = (instructions, stack);
            result
        },
        |hold| {
            let ((result, instructions), stack) =
                stack::below_here(|| counter.borrow_mut().count(|| hold.control()));
            let (stack, depth) = stack?;
            deepest.set(deepest.get().max(depth));
            periods[k] = (instructions, stack, hold.stats.steps);
            k += 1;
            result
        },
    )?;
    let t1 = clock_cs();
    writeln!(
        out,
        "# timing cartpole_nmpc periods {NMPC_PERIODS} cs {}",
        t1 - t0
    )?;
    let show = |x: Option<u64>| x.map_or(-1, |v| v as i64);
    writeln!(
        out,
        "# nmpc plan instructions {} stack {}",
        show(plan.0),
        plan.1
    )?;
    writeln!(out, "# stack cartpole_nmpc_deepest bytes {}", deepest.get())?;
    for (k, (instructions, stack, steps)) in periods.iter().enumerate() {
        writeln!(
            out,
            "# nmpc period {k} instructions {} stack {stack} steps {steps}",
            show(*instructions)
        )?;
    }
    Ok(())
}

/// Instructions counted by the emulator. Under `qemu-system-arm -icount shift=0` QEMU's
/// virtual clock advances exactly 1 ns per executed instruction. SysTick, clocked from the
/// board's reference clock (1 MHz on `mps2-an386` and on `mps2-an500`), then counts one tick
/// per 1000 instructions, down from 2^24 − 1 without interrupts: a count is restarted for each
/// call and reaches 16.7·10⁹ instructions before it would wrap, which `COUNTFLAG` detects. (The
/// Cortex-M4's and M7's cycle counter, DWT `CYCCNT`, is not emulated by QEMU; SysTick on the
/// 25 MHz processor clock would resolve 40 instructions but wrap after 671·10⁶.)
/// [`Counter::calibrate`] checks the ratio on a loop of known length.
mod icount {
    use cortex_m::peripheral::syst::SystClkSource;
    use cortex_m::peripheral::SYST;

    /// Instructions per SysTick tick: 1 ns per instruction (`-icount shift=0`) at 1 MHz.
    pub const INSTRUCTIONS_PER_TICK: u64 = 1000;
    const RELOAD: u32 = 0x00FF_FFFF;

    /// The SysTick.
    pub struct Counter(SYST);

    impl Counter {
        /// SysTick on the reference clock, counting down from 2^24 − 1, no interrupt.
        pub fn new(mut syst: SYST) -> Self {
            syst.disable_interrupt();
            syst.set_clock_source(SystClkSource::External);
            syst.set_reload(RELOAD);
            syst.clear_current();
            syst.enable_counter();
            Self(syst)
        }

        /// `f()` and the instructions it executed (to a tick: 1000), or `None` if the counter
        /// wrapped.
        #[inline(never)]
        pub fn count<R>(&mut self, f: impl FnOnce() -> R) -> (R, Option<u64>) {
            // Restart from the reload value: writing the current value clears it (and
            // COUNTFLAG); the next tick reloads it.
            self.0.clear_current();
            while SYST::get_current() == 0 {}
            let _ = self.0.has_wrapped(); // reading COUNTFLAG clears it
            let t0 = SYST::get_current();
            let r = f();
            let t1 = SYST::get_current();
            let wrapped = self.0.has_wrapped();
            let ticks = if wrapped || t1 > t0 {
                None
            } else {
                Some(u64::from(t0 - t1) * INSTRUCTIONS_PER_TICK)
            };
            (r, ticks)
        }

        /// The check of the count: a loop of `subs`/`bne` pairs, 2 instructions per turn, and
        /// one `mov`. Returns the loop's instructions and their count.
        pub fn calibrate(&mut self) -> (u64, Option<u64>) {
            const TURNS: u32 = 10_000_000;
            let ((), counted) = self.count(|| {
                // SAFETY: a register-only loop; no memory, no stack.
                unsafe {
                    core::arch::asm!(
                        "mov {n}, {turns}",
                        "2:",
                        "subs {n}, {n}, #1",
                        "bne 2b",
                        n = out(reg) _,
                        turns = in(reg) TURNS,
                        options(nomem, nostack),
                    );
                }
            });
            (2 * u64::from(TURNS) + 1, counted)
        }
    }
}

/// The emulator's clock in centiseconds (semihosting `SYS_CLOCK`; QEMU answers with its own
/// process CPU time).
fn clock_cs() -> i64 {
    // SAFETY: SYS_CLOCK takes no argument block and only returns a value.
    let c = unsafe { syscall!(CLOCK) };
    c as isize as i64
}

/// Stack painting: fill the unused stack with a pattern before the runs, find the lowest word
/// that changed after them.
mod stack {
    const PAINT: u32 = 0x5EA5_C0DE;

    extern "C" {
        /// Lowest address of the stack region (end of `.bss`/`.uninit`), from cortex-m-rt's
        /// `link.x`.
        static _stack_end: u32;
        /// Initial stack pointer: the top of RAM.
        static _stack_start: u32;
    }

    fn bounds() -> (usize, usize) {
        (
            &raw const _stack_end as usize,
            &raw const _stack_start as usize,
        )
    }

    /// Paints the stack from its lowest address up to 256 bytes below the current frame.
    #[inline(never)]
    pub fn paint() {
        let (bottom, _) = bounds();
        let sp = cortex_m::register::msp::read() as usize;
        let mut p = bottom;
        while p + 256 < sp {
            // SAFETY: [bottom, sp - 256) is stack memory below every live frame, owned by no
            // Rust object; nothing runs concurrently (no interrupts are enabled).
            unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
            p += 4;
        }
    }

    /// The bytes below the caller's frame that one call may use when measured by
    /// [`below_here`].
    const WINDOW: usize = 512 * 1024;

    /// `f()` and the stack it used: below this function's frame, and from the top of the stack
    /// (all frames, the caller's included), in bytes. The `WINDOW` bytes below are painted
    /// first and scanned after; `f` using all of them is an error (its use is unknown).
    #[inline(never)]
    pub fn below_here<R>(f: impl FnOnce() -> R) -> (R, Result<(usize, usize), super::RunError>) {
        let top = cortex_m::register::msp::read() as usize;
        let (bottom, stack_top) = bounds();
        let lowest = top.saturating_sub(WINDOW).max(bottom);
        // `paint_window`'s own frame stays above `top - 512`.
        paint_window(lowest, top - 512);
        let r = f();
        let mut p = lowest;
        // SAFETY: reads of aligned words of the stack region painted above.
        while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
            p += 4;
        }
        let used = if p == lowest {
            Err(super::RunError::Requirement(
                "a measured call used the whole painted stack window",
            ))
        } else {
            Ok((top - p, stack_top - p))
        };
        (r, used)
    }

    #[inline(never)]
    fn paint_window(from: usize, to: usize) {
        let mut p = from & !3;
        while p < to {
            // SAFETY: [from, to) lies below every live frame (the caller's frame ends above
            // `to`, this function's own frame is small and above `to` too); no interrupts.
            unsafe { core::ptr::write_volatile(p as *mut u32, PAINT) };
            p += 4;
        }
    }

    /// The most stack used since [`paint`], in bytes.
    pub fn high_water() -> usize {
        let (bottom, top) = bounds();
        let mut p = bottom;
        // SAFETY: reads of aligned words inside the stack region.
        while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PAINT {
            p += 4;
        }
        top - p
    }
}

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    if let Ok(mut err) = hio::hstderr() {
        let _ = writeln!(err, "panic: {info}");
    }
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
