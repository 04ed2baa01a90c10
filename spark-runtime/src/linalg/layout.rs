//! Flat, fixed-size stack buffers whose length is a sum of products of const generics.
//!
//! Stable Rust cannot write `[f64; S * (N + M)]` in generic code. A [`Layout`] describes such a
//! length as a type (`Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, M>, S>>` has `S·N + S·M`
//! entries), and `Layout::Of<T>` is a plain buffer of that many `T`s built from arrays and
//! `#[repr(C)]` pairs. Because such a buffer has no padding, it can be viewed as one slice, so
//! vectors and square matrices of any stage-system size live on the stack with no heap and no
//! const arithmetic.

use core::mem::size_of;

/// A shape of `LEN` scalars; `Of<T>` is a padding-free buffer of `LEN` values of `T`.
///
/// # Safety
/// `Of<T>` must consist of exactly `LEN` contiguous `T`s with no padding, so that it can be
/// reinterpreted as `[T; LEN]`. The implementations in this module guarantee it; a size check
/// in [`flat`] guards every view.
pub unsafe trait Layout: Copy + 'static {
    /// Number of scalars.
    const LEN: usize;
    /// A buffer of `LEN` values of `T`.
    type Of<T: Copy>: Copy;
    /// A buffer with every entry equal to `x`.
    fn fill<T: Copy>(x: T) -> Self::Of<T>;
}

/// One scalar.
#[derive(Clone, Copy, Debug)]
pub struct Scalar;

/// `K` copies of the layout `L`.
#[derive(Clone, Copy, Debug)]
pub struct Arr<L, const K: usize>(L);

/// The layout `A` followed by the layout `B`.
#[derive(Clone, Copy, Debug)]
pub struct Cat<A, B>(A, B);

/// The storage of a [`Cat`]: `#[repr(C)]`, so `A` comes first and there is no reordering.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Pair<A, B>(pub A, pub B);

// SAFETY: `T` is one `T`.
unsafe impl Layout for Scalar {
    const LEN: usize = 1;
    type Of<T: Copy> = T;
    fn fill<T: Copy>(x: T) -> T {
        x
    }
}

// SAFETY: an array of `K` padding-free buffers of `L::LEN` values is padding-free.
unsafe impl<L: Layout, const K: usize> Layout for Arr<L, K> {
    const LEN: usize = K * L::LEN;
    type Of<T: Copy> = [L::Of<T>; K];
    fn fill<T: Copy>(x: T) -> Self::Of<T> {
        [L::fill(x); K]
    }
}

// SAFETY: a `repr(C)` pair of two buffers of `T` (each a multiple of `T`'s size and alignment)
// has no padding between or after its fields.
unsafe impl<A: Layout, B: Layout> Layout for Cat<A, B> {
    const LEN: usize = A::LEN + B::LEN;
    type Of<T: Copy> = Pair<A::Of<T>, B::Of<T>>;
    fn fill<T: Copy>(x: T) -> Self::Of<T> {
        Pair(A::fill(x), B::fill(x))
    }
}

/// A square `LEN × LEN` matrix buffer of the layout `L` (row-major).
pub type Square<L> = <L as Layout>::Of<<L as Layout>::Of<f64>>;

/// Views a buffer of `L` as a mutable slice of `L::LEN` values.
pub fn flat<L: Layout, T: Copy>(x: &mut L::Of<T>) -> &mut [T] {
    let len = L::LEN;
    assert!(size_of::<L::Of<T>>() == len * size_of::<T>());
    // SAFETY: by the `Layout` contract `L::Of<T>` is `len` contiguous `T`s (size checked above);
    // the borrow of `x` is carried over to the slice.
    unsafe { core::slice::from_raw_parts_mut(x as *mut L::Of<T> as *mut T, len) }
}

/// Views a square matrix buffer of `L` as a mutable row-major slice of `L::LEN²` values.
pub fn flat_square<L: Layout>(x: &mut Square<L>) -> &mut [f64] {
    let len = L::LEN * L::LEN;
    assert!(size_of::<Square<L>>() == len * size_of::<f64>());
    // SAFETY: `Square<L>` is `L::LEN` buffers of `L::LEN` f64 each, all padding-free.
    unsafe { core::slice::from_raw_parts_mut(x as *mut Square<L> as *mut f64, len) }
}

/// A zero square matrix of the layout `L`.
pub fn zero_square<L: Layout>() -> Square<L> {
    // SAFETY: `Square<L>` is `L::LEN²` f64 and nothing else (the `Layout` contract), and the
    // all-zero bit pattern is `0.0`. One `memset`: `fill` repeats each row by copying it.
    unsafe { core::mem::zeroed() }
}

/// A buffer of `L::LEN` zeros (as `L::fill(0.0)`, in one `memset`).
pub fn zeros<L: Layout>() -> L::Of<f64> {
    // SAFETY: as in `zero_square`: `L::Of<f64>` is `L::LEN` f64.
    unsafe { core::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Stage<const N: usize, const M: usize, const S: usize> =
        Cat<Arr<Arr<Scalar, N>, S>, Arr<Arr<Scalar, M>, S>>;

    #[test]
    fn lengths_and_views_agree() {
        type L = Stage<3, 2, 4>;
        assert_eq!(L::LEN, 20);
        let mut v = L::fill(0.0);
        let s = flat::<L, f64>(&mut v);
        assert_eq!(s.len(), 20);
        s[19] = 7.0;
        assert_eq!(v.1[3][1], 7.0);
        let mut m = zero_square::<L>();
        let f = flat_square::<L>(&mut m);
        assert_eq!(f.len(), 400);
        // Row 3 is entry 0 of stage block 1; column 13 is past the 12 stage entries, so it is
        // entry 1 of multiplier block 0.
        f[20 * 3 + 13] = 1.5;
        assert_eq!(m.0[1][0].1[0][1], 1.5);
    }

    #[test]
    fn empty_blocks_are_allowed() {
        type L = Stage<2, 0, 3>;
        assert_eq!(L::LEN, 6);
        let mut v = L::fill(1usize);
        assert_eq!(flat::<L, usize>(&mut v).len(), 6);
    }
}
