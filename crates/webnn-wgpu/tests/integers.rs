//! Integer kernels (32-bit native, 8-bit packed, 64-bit emulated) and every cast, compared
//! exactly with the cpu backend: the shared integer cases on the wgpu backend.

mod common;
mod shared {
    pub mod integers;
}
