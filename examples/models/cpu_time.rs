// CPU time from the C library's `clock_gettime` (64-bit Linux; NaN elsewhere), shared by the
// benchmark examples (included with `include!`). On a shared machine, runs that outlast a time
// slice are not charged for other processes.

#[allow(dead_code)]
mod cpu_time {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    fn seconds(clock: i32) -> f64 {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
        }
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: `clock_gettime` of the C library (linked by std on Linux) writes one
        // `timespec` (two 64-bit integers on 64-bit Linux) to a live local.
        let rc = unsafe { clock_gettime(clock, &mut ts) };
        if rc == 0 {
            ts.sec as f64 + 1e-9 * ts.nsec as f64
        } else {
            f64::NAN
        }
    }

    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    fn seconds(_clock: i32) -> f64 {
        f64::NAN
    }

    /// The process's CPU time in seconds (`CLOCK_PROCESS_CPUTIME_ID`, as the peers' `cpu` and
    /// Python's `process_time`).
    pub fn process() -> f64 {
        seconds(2)
    }

    /// This thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`).
    pub fn thread() -> f64 {
        seconds(3)
    }
}
