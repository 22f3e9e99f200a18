//! Useful functions for checking features.
// ndb: `FromStr` is no longer used (see `get_num_threads`).

pub fn get_num_threads() -> usize {
    // ndb: the size of rayon's global pool, which the kernels run on, instead
    // of reading RAYON_NUM_THREADS again: an application sizes the pool by
    // configuration (`ThreadPoolBuilder::build_global`), not by setting the
    // environment of a running process. The pool itself still honours the
    // variable when nobody configured it.
    rayon::current_num_threads()
}

pub fn has_accelerate() -> bool {
    cfg!(feature = "accelerate")
}

pub fn has_mkl() -> bool {
    cfg!(feature = "mkl")
}

pub fn cuda_is_available() -> bool {
    cfg!(feature = "cuda")
}

pub fn metal_is_available() -> bool {
    cfg!(feature = "metal")
}

pub fn with_avx() -> bool {
    cfg!(target_feature = "avx2")
}

pub fn with_neon() -> bool {
    cfg!(target_feature = "neon")
}

pub fn with_simd128() -> bool {
    cfg!(target_feature = "simd128")
}

pub fn with_f16c() -> bool {
    cfg!(target_feature = "f16c")
}
