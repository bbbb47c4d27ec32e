//! Whether the NVIDIA path can run on this machine, and its failures as lines a person can act
//! on: what failed (layer, batch size, algorithm) and the library's own words.
//!
//! `cudarc` loads each library function the first time it is called and panics when the loaded
//! library lacks it, so [`check`] looks up every function this path calls before anything runs;
//! the few failures `cudarc` unwraps that cannot be checked first run inside [`guarded`].

use cudarc::driver::CudaContext;

use crate::nn::infer::gpu::catch_panic;

/// Why the NVIDIA path cannot run, or what failed in it.
#[derive(Debug, thiserror::Error)]
pub enum CudnnError {
    #[error("{0}")]
    Missing(String),
    #[error("CUDA: {0}")]
    Driver(String),
    #[error("cuDNN: {0}")]
    Cudnn(String),
    #[error("cuBLASLt: {0}")]
    Blas(String),
    /// A panic inside the bindings, caught.
    #[error("{what}: {message}")]
    Caught { what: String, message: String },
}

/// A driver call that failed while doing `what`.
pub(super) fn driver(what: impl std::fmt::Display, e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Driver(format!("{what}: {e:?}"))
}

/// A cuDNN call that failed while doing `what`, with cuDNN's last error message.
pub(super) fn dnn(what: impl std::fmt::Display, e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Cudnn(format!("{what}: {e:?}{}", last_cudnn_error()))
}

/// A cuBLASLt call that failed while doing `what`.
pub(super) fn blas(what: impl std::fmt::Display, e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Blas(format!("{what}: {e:?}"))
}

/// Runs `f`, a call into the bindings that may panic rather than fail (see the module's
/// comment); the panic becomes an error saying `what` was being done.
pub(super) fn guarded<T>(what: impl std::fmt::Display, f: impl FnOnce() -> Result<T, CudnnError>) -> Result<T, CudnnError> {
    catch_panic::catch(f).unwrap_or_else(|message| Err(CudnnError::Caught { what: what.to_string(), message }))
}

/// cuDNN's message about the last failed call (`cudnnGetLastErrorString`, cuDNN 9), as
/// `" (message)"` on one line, or nothing when it has none.
fn last_cudnn_error() -> String {
    let mut buf = [0 as std::ffi::c_char; 1024];
    // SAFETY: `check` found the function; it writes at most `buf.len()` bytes, NUL-terminated.
    unsafe { cudarc::cudnn::sys::cudnnGetLastErrorString(buf.as_mut_ptr(), buf.len()) };
    buf[buf.len() - 1] = 0;
    // SAFETY: the buffer is NUL-terminated (its last byte at least).
    let text = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() { String::new() } else { format!(" ({line})") }
}

/// The driver functions this path calls (names as `cudarc` 0.19 loads them for CUDA 13).
const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
    "cuMemAllocAsync",
    "cuMemAlloc_v2",
    "cuMemFreeAsync",
    "cuMemFree_v2",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemsetD8Async",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuGetErrorString",
];

/// The cuDNN functions this path calls.
const CUDNN_SYMBOLS: &[&str] = &[
    "cudnnGetVersion",
    "cudnnGetLastErrorString",
    "cudnnCreate",
    "cudnnDestroy",
    "cudnnSetStream",
    "cudnnCreateTensorDescriptor",
    "cudnnSetTensor4dDescriptor",
    "cudnnDestroyTensorDescriptor",
    "cudnnCreateFilterDescriptor",
    "cudnnSetFilter4dDescriptor",
    "cudnnDestroyFilterDescriptor",
    "cudnnCreateConvolutionDescriptor",
    "cudnnSetConvolution2dDescriptor",
    "cudnnSetConvolutionMathType",
    "cudnnDestroyConvolutionDescriptor",
    "cudnnCreateActivationDescriptor",
    "cudnnSetActivationDescriptor",
    "cudnnGetConvolutionForwardWorkspaceSize",
    "cudnnConvolutionBiasActivationForward",
];

/// The cuBLASLt functions this path calls.
const CUBLASLT_SYMBOLS: &[&str] = &[
    "cublasLtCreate",
    "cublasLtDestroy",
    "cublasLtMatrixLayoutCreate",
    "cublasLtMatrixLayoutSetAttribute",
    "cublasLtMatrixLayoutDestroy",
    "cublasLtMatmulDescCreate",
    "cublasLtMatmulDescSetAttribute",
    "cublasLtMatmulDescDestroy",
    "cublasLtMatmulPreferenceCreate",
    "cublasLtMatmulPreferenceSetAttribute",
    "cublasLtMatmulPreferenceDestroy",
    "cublasLtMatmulAlgoGetHeuristic",
    "cublasLtMatmul",
];

/// The first of `names` that `found` says is missing.
fn first_missing(names: &[&'static str], found: impl Fn(&str) -> bool) -> Option<&'static str> {
    names.iter().copied().find(|name| !found(name))
}

/// Checks that the NVIDIA driver, cuDNN and cuBLASLt load and have every function this path
/// calls, and that GPU `ordinal` exists, before anything calls into them. Returns the GPU's name
/// and cuDNN's version.
pub fn check(ordinal: usize) -> Result<String, CudnnError> {
    // SAFETY: these only load the libraries and look symbols up; nothing is called in them.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(CudnnError::Missing("the NVIDIA driver library (libcuda.so.1) was not found: this machine has no NVIDIA driver".into()));
    }
    if !unsafe { cudarc::cudnn::sys::is_culib_present() } {
        return Err(CudnnError::Missing(
            "cuDNN (libcudnn.so.9) was not found: install it (for example the pip package nvidia-cudnn-cu13) and put its lib folder on LD_LIBRARY_PATH".into(),
        ));
    }
    if !unsafe { cudarc::cublaslt::sys::is_culib_present() } {
        return Err(CudnnError::Missing(
            "cuBLASLt (libcublasLt.so) was not found: install cuBLAS (for example the pip package nvidia-cublas) and put its lib folder on LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let libraries: [(&str, &[&'static str], &dyn Fn(&str) -> bool); 3] = [
        // SAFETY (all three): the library is present (checked above), so `culib` loads it
        // without panicking; a symbol is only looked up, never called.
        ("the NVIDIA driver (libcuda.so.1)", DRIVER_SYMBOLS, &|n| unsafe { cudarc::driver::sys::culib().get::<unsafe extern "C" fn()>(n.as_bytes()).is_ok() }),
        ("cuDNN (libcudnn.so.9)", CUDNN_SYMBOLS, &|n| unsafe { cudarc::cudnn::sys::culib().get::<unsafe extern "C" fn()>(n.as_bytes()).is_ok() }),
        ("cuBLASLt (libcublasLt.so)", CUBLASLT_SYMBOLS, &|n| unsafe { cudarc::cublaslt::sys::culib().get::<unsafe extern "C" fn()>(n.as_bytes()).is_ok() }),
    ];
    for (library, names, found) in libraries {
        if let Some(name) = first_missing(names, found) {
            return Err(CudnnError::Missing(format!(
                "{library} has no function {name}: it is older than this build needs (CUDA 13 driver, cuDNN 9, cuBLASLt 13); put a newer one on LD_LIBRARY_PATH"
            )));
        }
    }
    let count = CudaContext::device_count().map_err(|e| driver("counting the GPUs", e))?;
    if ordinal >= count.max(0) as usize {
        return Err(CudnnError::Missing(format!("GPU {ordinal} does not exist: the driver sees {count}")));
    }
    let ctx = guarded(format_args!("opening GPU {ordinal}"), || CudaContext::new(ordinal).map_err(|e| driver(format_args!("opening GPU {ordinal}"), e)))?;
    let name = ctx.name().map_err(|e| driver("reading the GPU's name", e))?;
    let version = cudarc::cudnn::result::get_version();
    Ok(format!("{name}, cuDNN {}.{}.{}", version / 10_000, version / 100 % 100, version % 100))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_missing_function_is_named_and_none_when_all_are_there() {
        let have = ["cudnnCreate", "cudnnDestroy"];
        assert_eq!(first_missing(&["cudnnCreate", "cudnnGetLastErrorString", "cudnnX"], |n| have.contains(&n)), Some("cudnnGetLastErrorString"));
        assert_eq!(first_missing(&have, |n| have.contains(&n)), None);
        let all: Vec<&str> = DRIVER_SYMBOLS.iter().chain(CUDNN_SYMBOLS).chain(CUBLASLT_SYMBOLS).copied().collect();
        assert!(all.iter().all(|n| n.starts_with("cu") && !n.contains(' ')), "{all:?}");
    }
}
