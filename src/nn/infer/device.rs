//! Choosing the compute device by name (config `hardware.device`).

use burn::prelude::Device;
use serde::{Deserialize, Serialize};

crate::settings! {
    /// `[hardware]`: compute devices.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct HardwareConfig in "hardware", about "Where networks run: \"flex\" (CPU), or \"wgpu\" / \"vulkan\" / \"cuda\" / \"cuda:N\" in builds with those cargo features." {
        /// The device networks run on: flex (CPU), wgpu, vulkan, cuda or cuda:N, or cudnn (cudnn:N):
        /// inference on an NVIDIA GPU through cuDNN, training on the first GPU backend built in.
        /// Only backends compiled into the binary are available (see the cargo features).
        pub device: String = "flex".into() => "flex (CPU), wgpu, vulkan, cuda, cuda:N";
        /// On the CPU, run inference through the fused path (batch norm folded into the
        /// convolutions, Winograd transforms and SIMD matrix products) instead of burn's kernels.
        /// Training always uses burn.
        pub fused_cpu: bool = true => "CPU inference through the fused path (batch norm folded, Winograd transforms, SIMD matrix products); false: burn's kernels";
        /// The fused path's instruction set: auto (the widest this CPU runs), avx512, avx2 or
        /// portable. A set the CPU lacks is refused.
        pub cpu_kernels: super::cpu::kernels::CpuKernels = Default::default() => "the fused path's instruction set: auto (the widest this CPU runs), avx512, avx2 or portable";
        /// The fused path's 3 × 3 convolutions: winograd4, winograd2 or im2col.
        pub cpu_conv: super::cpu::CpuConv = Default::default() => "its 3x3 convolutions: winograd4 (fewest multiplies), winograd2, im2col";
    }
}

impl HardwareConfig {
    /// The device name names a backend compiled into this binary, and a GPU device opens and
    /// computes ([`check_device`]).
    pub fn validate(&self) -> Result<(), crate::check::ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        self.fused_options()?;
        check_device(&self.device).map(drop).map_err(|e| crate::check::ConfigError::Invalid { key: "hardware.device".into(), message: e.to_string() })
    }

    /// The fused CPU path's options, or why this CPU cannot run them.
    pub fn fused_options(&self) -> Result<super::cpu::FusedOptions, crate::check::ConfigError> {
        super::cpu::FusedOptions::new(self.cpu_kernels, self.cpu_conv)
            .map_err(|message| crate::check::ConfigError::Invalid { key: "hardware.cpu_kernels".into(), message })
    }

    /// The device with the adapter's name where the backend reports one, e.g.
    /// `wgpu (NVIDIA H200)`; the bare name for the CPU.
    pub fn describe(&self) -> String {
        match check_device(&self.device) {
            Ok(Some(adapter)) => format!("{} ({adapter})", self.device),
            _ => self.device.clone(),
        }
    }
}

/// Names accepted in configs and on the command line.
pub const DEVICE_NAMES: &str = "flex (CPU), wgpu, vulkan, cuda, cuda:N, cudnn, cudnn:N";

/// The backends compiled into this binary.
pub fn compiled_backends() -> Vec<&'static str> {
    let mut v = Vec::new();
    if cfg!(feature = "flex") {
        v.push("flex");
    }
    if cfg!(feature = "wgpu") {
        v.push("wgpu");
    }
    if cfg!(feature = "vulkan") {
        v.push("vulkan");
    }
    if cfg!(feature = "cuda") {
        v.push("cuda");
    }
    if cfg!(feature = "cudnn") {
        v.push("cudnn");
    }
    v
}

/// The GPU of a `cudnn` / `cudnn:N` device name (inference through cuDNN), if it is one.
pub fn cudnn_ordinal(name: &str) -> Option<usize> {
    match name.split_once(':') {
        Some(("cudnn", i)) => i.parse().ok(),
        None if name == "cudnn" => Some(0),
        _ => None,
    }
}

/// How to build with a backend feature: cuda's build needs the script (cargo alone would
/// download an LLVM bundle).
fn build_command(feature: &str) -> String {
    match feature {
        "cuda" => "scripts/build-cuda.sh".into(),
        _ => format!("cargo build --release --features {feature}"),
    }
}

/// Why a device name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("device '{name}' needs a build with the '{feature}' feature ({}); this build has: {built}", build_command(feature))]
    NotBuilt { name: String, feature: &'static str, built: String },
    #[error("bad device index in '{0}'")]
    BadIndex(String),
    #[error("unknown device '{name}' (known: {known})")]
    Unknown { name: String, known: &'static str },
    #[error("device '{name}' cannot be used: {reason}")]
    Unavailable { name: String, reason: String },
}

/// Parses a device name; a backend missing from this build is an error naming the feature to
/// build with.
pub fn parse_device(name: &str) -> Result<Device, DeviceError> {
    #[allow(unused)]
    let missing = |feature: &'static str| DeviceError::NotBuilt { name: name.into(), feature, built: compiled_backends().join(", ") };
    let (kind, index) = match name.split_once(':') {
        Some((k, i)) => (k, Some(i.parse::<usize>().map_err(|_| DeviceError::BadIndex(name.into()))?)),
        None => (name, None),
    };
    match kind {
        "flex" | "cpu" => {
            let _ = index; // one CPU device
            #[cfg(feature = "flex")]
            return Ok(Device::flex());
            #[cfg(not(feature = "flex"))]
            return Err(missing("flex"));
        }
        "wgpu" => {
            #[cfg(feature = "wgpu")]
            return Ok(Device::wgpu(match index {
                Some(i) => burn::tensor::DeviceKind::DiscreteGpu(i),
                None => burn::tensor::DeviceKind::DefaultDevice,
            }));
            #[cfg(not(feature = "wgpu"))]
            return Err(missing("wgpu"));
        }
        "vulkan" => {
            #[cfg(feature = "vulkan")]
            return Ok(Device::vulkan(match index {
                Some(i) => burn::tensor::DeviceKind::DiscreteGpu(i),
                None => burn::tensor::DeviceKind::DefaultDevice,
            }));
            #[cfg(not(feature = "vulkan"))]
            return Err(missing("vulkan"));
        }
        "cuda" => {
            #[cfg(feature = "cuda")]
            return Ok(Device::cuda(index.unwrap_or(0)));
            #[cfg(not(feature = "cuda"))]
            return Err(missing("cuda"));
        }
        // Inference through cuDNN (nn::infer::gpu::cudnn); training (this device) on the first GPU backend
        // built in, or the CPU.
        "cudnn" => {
            #[cfg(not(feature = "cudnn"))]
            return Err(missing("cudnn"));
            #[cfg(feature = "cudnn")]
            {
                let _ = index;
                #[cfg(feature = "cuda")]
                return Ok(Device::cuda(index.unwrap_or(0)));
                #[cfg(all(feature = "wgpu", not(feature = "cuda")))]
                return Ok(Device::wgpu(burn::tensor::DeviceKind::DefaultDevice));
                #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
                return parse_device("flex");
            }
        }
        _ => Err(DeviceError::Unknown { name: name.into(), known: DEVICE_NAMES }),
    }
}

/// Opens a device by name and runs one small computation on it, so that a missing driver or
/// adapter is one error line here instead of a panic deep inside a backend later. The CPU needs
/// no check. Returns the adapter's name where the backend reports one. Each name is checked once
/// per process (the answer is kept).
pub fn check_device(name: &str) -> Result<Option<String>, DeviceError> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CHECKED: Mutex<Option<HashMap<String, Result<Option<String>, DeviceError>>>> = Mutex::new(None);
    let device = parse_device(name)?;
    if is_cpu(name) {
        return Ok(None);
    }
    #[cfg(feature = "cudnn")]
    if let Some(ordinal) = cudnn_ordinal(name) {
        return super::gpu::cudnn::check(ordinal).map(Some).map_err(|e| DeviceError::Unavailable { name: name.into(), reason: e.to_string() });
    }
    let mut checked = CHECKED.lock().unwrap_or_else(|p| p.into_inner());
    let checked = checked.get_or_insert_with(HashMap::new);
    if let Some(r) = checked.get(name) {
        return r.clone();
    }
    let r = open_and_compute(name, &device);
    checked.insert(name.into(), r.clone());
    r
}

/// The adapter's name after a sum of four ones came out as 4 on `device`; a backend panic
/// (no adapter, no driver) becomes its message on one line, with a hint.
fn open_and_compute(name: &str, device: &Device) -> Result<Option<String>, DeviceError> {
    use burn::prelude::Tensor;
    let unavailable = |reason: String| DeviceError::Unavailable { name: name.into(), reason };
    let work = || {
        #[cfg(any(feature = "wgpu", feature = "vulkan", feature = "cuda"))]
        let adapter = device.identity().map(|i| i.name);
        #[cfg(not(any(feature = "wgpu", feature = "vulkan", feature = "cuda")))]
        let adapter = None;
        let sum = Tensor::<1>::ones([4], device).sum().into_scalar::<f32>();
        (adapter, sum)
    };
    // The backend reports a missing adapter by panicking, on its own device thread first; keep
    // the messages off stderr and report the first one (the cause).
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let text = payload_text(info.payload());
        SEEN.lock().unwrap_or_else(|p| p.into_inner()).push(text);
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    std::panic::set_hook(hook);
    let seen = std::mem::take(&mut *SEEN.lock().unwrap_or_else(|p| p.into_inner()));
    match result {
        Ok((adapter, 4.0)) => Ok(adapter),
        Ok((_, sum)) => Err(unavailable(format!("a test sum of four ones gave {sum}"))),
        Err(payload) => {
            let text = seen.into_iter().next().unwrap_or_else(|| payload_text(&*payload));
            let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if line.len() > 300 {
                let cut = (0..=300).rev().find(|&i| line.is_char_boundary(i)).unwrap_or(0);
                line.truncate(cut);
                line.push_str("...");
            }
            let hint = if name.starts_with("cuda") {
                "no CUDA driver: the cuda build needs an NVIDIA GPU and its driver's libcuda.so"
            } else {
                "no usable adapter or driver; without a GPU, Debian's mesa-vulkan-drivers and libvulkan1 give wgpu a software Vulkan device"
            };
            Err(unavailable(format!("{line} ({hint})")))
        }
    }
}

/// A panic's message, where it has one.
fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "the backend failed to start".into())
}

/// Whether a device name is the CPU (where the fused inference path applies).
pub fn is_cpu(name: &str) -> bool {
    matches!(name.split(':').next(), Some("flex" | "cpu"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_are_checked_with_a_reason() {
        assert!(parse_device("flex").is_ok());
        let e = parse_device("tpu").unwrap_err().to_string();
        assert!(e.contains("unknown device 'tpu'") && e.contains("cuda:N"), "{e}");
        assert_eq!(parse_device("cuda:x").unwrap_err(), DeviceError::BadIndex("cuda:x".into()));
        if !cfg!(feature = "wgpu") {
            let e = parse_device("wgpu").unwrap_err().to_string();
            assert!(e.contains("needs a build with the 'wgpu' feature") && e.contains("this build has: flex"), "{e}");
            assert!(e.contains("cargo build --release --features wgpu"), "{e}");
        }
        if !cfg!(feature = "cuda") {
            let e = parse_device("cuda").unwrap_err().to_string();
            assert!(e.contains("needs a build with the 'cuda' feature (scripts/build-cuda.sh)"), "{e}");
        }
    }
}
