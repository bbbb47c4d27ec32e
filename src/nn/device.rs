//! Choosing the compute device by name (config `hardware.device`).

use burn::prelude::Device;
use serde::{Deserialize, Serialize};

/// `[hardware]`: compute devices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HardwareConfig {
    /// The device networks run on: flex (CPU), wgpu, vulkan, cuda or cuda:N. Only backends
    /// compiled into the binary are available (see the cargo features).
    pub device: String,
    /// On the CPU, run inference through the fused path (batch norm folded into the
    /// convolutions, im2col + matrix products) instead of burn's kernels. Training always uses
    /// burn.
    pub fused_cpu: bool,
}

impl Default for HardwareConfig {
    fn default() -> Self {
        HardwareConfig { device: "flex".into(), fused_cpu: true }
    }
}

impl HardwareConfig {
    /// The device name names a backend compiled into this binary.
    pub fn validate(&self) -> Result<(), crate::check::ConfigError> {
        parse_device(&self.device)
            .map(drop)
            .map_err(|e| crate::check::ConfigError::Invalid { key: "hardware.device".into(), message: e.to_string() })
    }
}

/// Names accepted in configs and on the command line.
pub const DEVICE_NAMES: &str = "flex (CPU), wgpu, vulkan, cuda, cuda:N";

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
    v
}

/// Why a device name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("device '{name}' needs a build with the '{feature}' feature (cargo build --release --features {feature}); this build has: {built}")]
    NotBuilt { name: String, feature: &'static str, built: String },
    #[error("bad device index in '{0}'")]
    BadIndex(String),
    #[error("unknown device '{name}' (known: {known})")]
    Unknown { name: String, known: &'static str },
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
        _ => Err(DeviceError::Unknown { name: name.into(), known: DEVICE_NAMES }),
    }
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
        }
    }
}
