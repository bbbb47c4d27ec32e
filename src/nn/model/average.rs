//! Weight averaging: a network blended, tensor by tensor, with another of the same
//! architecture (KataGo's averaged snapshots). Parameters and batch-norm running statistics
//! are both blended, so the averaged network's normalisation matches its weights.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::prelude::*;

use super::Net;

/// The two networks do not have the same tensors.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("cannot average networks of different architectures ({0})")]
pub struct ArchitectureMismatch(String);

/// Every float tensor of a module (parameters and running statistics) flattened, in the
/// module's visiting order.
struct Collect(Vec<Tensor<1>>);

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        let n: usize = t.dims().iter().product();
        self.0.push(t.reshape([n]));
    }
}

/// Replaces each float tensor `t` by `t * (1 - w) + other * w`, taking `other` in order.
struct Blend {
    others: std::vec::IntoIter<Tensor<1>>,
    weight_other: f64,
    mismatch: Option<String>,
}

impl ModuleMapper for Blend {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        if self.mismatch.is_some() {
            return param;
        }
        let Some(other) = self.others.next() else {
            self.mismatch = Some("the second network has fewer tensors".into());
            return param;
        };
        let dims = param.val().dims();
        let n: usize = dims.iter().product();
        if other.dims()[0] != n {
            self.mismatch = Some(format!("a tensor of {n} values against one of {}", other.dims()[0]));
            return param;
        }
        let w = self.weight_other;
        param.map(|t| t.mul_scalar(1.0 - w) + other.reshape(dims).mul_scalar(w))
    }
}

/// Every float tensor of `net`, flattened and concatenated in visiting order (for checks
/// and tests).
pub fn flat_values(net: &Net) -> Vec<f32> {
    let mut c = Collect(Vec::new());
    net.visit(&mut c);
    c.0.into_iter().flat_map(|t| t.into_data().try_into_vec::<f32>().expect("network tensors are f32")).collect()
}

/// `net * (1 - weight_other) + other * weight_other`, tensor by tensor, as a new network. Both
/// networks must share the architecture and live on the same device.
pub fn blend(net: &Net, other: &Net, weight_other: f64) -> Result<Net, ArchitectureMismatch> {
    let mut c = Collect(Vec::new());
    other.visit(&mut c);
    let count = c.0.len();
    let mut b = Blend { others: c.0.into_iter(), weight_other, mismatch: None };
    let out = net.clone().map(&mut b);
    if let Some(m) = b.mismatch {
        return Err(ArchitectureMismatch(m));
    }
    if b.others.len() > 0 {
        return Err(ArchitectureMismatch(format!("the second network has more tensors ({count})")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Encode;
    use crate::jungle::JungleGame;
    use crate::nn::model::ModelConfig;

    fn small(channels: usize, seed: u64) -> Net {
        let device = Device::flex();
        let config = ModelConfig { blocks: 1, channels, ..ModelConfig::default() };
        config.init_seeded(JungleGame::SHAPE, &device, seed)
    }

    #[test]
    fn blending_mixes_every_tensor_by_the_weight() {
        let (a, b) = (small(8, 1), small(8, 2));
        let (va, vb) = (flat_values(&a), flat_values(&b));
        assert_eq!(va.len(), vb.len());
        assert!(va.iter().zip(&vb).filter(|(x, y)| x != y).count() > va.len() / 2, "the two seeds gave the same weights");
        let mixed = flat_values(&blend(&a, &b, 0.25).unwrap());
        assert_eq!(mixed.len(), va.len());
        for ((x, y), m) in va.iter().zip(&vb).zip(&mixed) {
            let want = 0.75 * x + 0.25 * y;
            assert!((m - want).abs() <= 1e-5 * (1.0 + want.abs()), "{m} against {want}");
        }
        // Weight 0 keeps the first network exactly.
        let same = flat_values(&blend(&a, &b, 0.0).unwrap());
        assert!(same == va, "weight 0 changed the network");
    }

    #[test]
    fn networks_of_different_sizes_are_refused() {
        let e = blend(&small(8, 1), &small(16, 2), 0.5).unwrap_err();
        assert!(e.to_string().contains("different architectures"), "{e}");
    }
}
