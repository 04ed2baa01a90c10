//! spark on a Cortex-M4F (`thumbv7em-none-eabihf`): the runs of
//! [`spark_embedded::scenario`], printed over semihosting. Runs under QEMU's `mps2-an386`
//! board: `cargo run --release` (the runner is in `.cargo/config.toml`), or `bash run.sh`,
//! which also runs the host example and compares the two outputs.
//!
//! Besides the scenario's lines it prints, as `#` comment lines that the comparison skips, the
//! emulator's CPU time of each run (semihosting `SYS_CLOCK`, centiseconds) and each run's stack
//! high-water mark.
#![no_std]
#![no_main]

use core::fmt::Write;
use core::panic::PanicInfo;

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio, syscall};
use spark_embedded::scenario::{self, RunError};

#[entry]
fn main() -> ! {
    let status = match hio::hstdout() {
        Ok(mut out) => match run(&mut out) {
            Ok(()) => debug::EXIT_SUCCESS,
            Err(e) => {
                let _ = writeln!(out, "error: {e}");
                debug::EXIT_FAILURE
            }
        },
        Err(()) => debug::EXIT_FAILURE,
    };
    debug::exit(status);
    loop {
        cortex_m::asm::wfi();
    }
}

fn run(out: &mut hio::HostStream) -> Result<(), RunError> {
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
    Ok(())
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
