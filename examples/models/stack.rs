// Stack painting: how many bytes of stack a call uses (x86_64, release), shared by the examples
// that report stack use (included with `include!`).

#[allow(dead_code)]
mod stack {
    use std::hint::black_box;

    const PAINT: u64 = 0x5EA5_C0DE_5EA5_C0DE;
    /// How far below the painting function's frame the paint reaches.
    pub const DEPTH: usize = 4 << 20;

    /// Paints `[sp - DEPTH, sp - 512)` below this function's frame.
    #[inline(never)]
    fn paint() {
        let marker = 0u8;
        let sp = black_box(&marker as *const u8 as usize) & !7;
        let mut p = sp - DEPTH;
        while p < sp - 512 {
            // SAFETY: this region lies inside the calling thread's stack (spawned with more than
            // 2·DEPTH bytes) below every live frame; nothing else uses it while we paint.
            unsafe { std::ptr::write_volatile(p as *mut u64, PAINT) };
            p += 8;
        }
    }

    /// Lowest address below `sp` whose paint was overwritten.
    fn lowest_touched(sp: usize) -> usize {
        let mut p = (sp & !7) - DEPTH;
        // SAFETY: reads of the region painted above, still inside this thread's stack.
        while p < sp && unsafe { std::ptr::read_volatile(p as *const u64) } == PAINT {
            p += 8;
        }
        p
    }

    /// Stack bytes `f` uses below the caller's frame, minus what an empty call uses.
    #[inline(never)]
    pub fn measure(f: &mut dyn FnMut()) -> usize {
        let marker = 0u8;
        let sp = black_box(&marker as *const u8 as usize);
        paint();
        black_box(&mut || {})();
        let base = lowest_touched(sp);
        paint();
        f();
        let used = lowest_touched(sp);
        base.saturating_sub(used)
    }
}
