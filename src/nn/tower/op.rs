//! The tower's convolution + batch norm (+ residual) + ReLU as one burn operation with a
//! backward pass of its own (burn's backend extensions: an extension trait implemented for the
//! CPU backend and for its autodiff wrapper, whose `Backward` step registers the inputs'
//! gradients). The rest of the graph (the heads, the losses, the optimiser) stays burn's.

use burn::backend::TensorMetadata;
use burn::backend::autodiff::NodeId;
use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::flex::FlexTensor;
use burn::backend::tensor::FloatTensor;
use burn::backend::{Autodiff, AutodiffBackend, Backend, ExtensionType, Flex, backend_extension};
use burn::tensor::{Shape, TensorData};

use super::conv::Geometry;
use super::norm::to_channels_last;
use super::step::{self, Saved};
use crate::nn::infer::cpu::kernels::KernelSet;

/// What an operation is told besides its tensors.
#[derive(Clone, Copy, Debug)]
pub struct StepOptions {
    pub kernels: KernelSet,
    pub epsilon: f64,
}

/// The operation's outputs: the activation, and the batch's per-channel mean and variance
/// (constants, for the running statistics).
#[derive(ExtensionType)]
pub struct StepOutput<B: Backend> {
    pub out: FloatTensor<B>,
    pub mean: FloatTensor<B>,
    pub var: FloatTensor<B>,
}

#[backend_extension(Flex, Autodiff)]
pub trait TowerBackend: Backend {
    /// `relu(bn(conv3x3(x, w)))` with the batch's statistics.
    fn conv_bn_relu(x: FloatTensor<Self>, w: FloatTensor<Self>, gamma: FloatTensor<Self>, beta: FloatTensor<Self>, options: StepOptions) -> StepOutput<Self>;
    /// `relu(bn(conv3x3(x, w)) + residual)` with the batch's statistics.
    fn conv_bn_add_relu(
        x: FloatTensor<Self>,
        w: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        options: StepOptions,
    ) -> StepOutput<Self>;
}

/// A `[n, c, rows, cols]` tensor's floats as channels-last rows: its own storage when it is
/// laid out so (this operation's outputs and gradients are), a copy otherwise.
fn channels_last(t: &FlexTensor) -> std::borrow::Cow<'_, [f32]> {
    let s = t.shape();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let layout = t.layout();
    let wanted = [(h * w * c) as isize, 1, (w * c) as isize, c as isize];
    if t.dtype() == burn::tensor::DType::F32 && layout.strides() == wanted {
        let start = layout.start_offset();
        let storage: &[f32] = t.storage();
        if let Some(rows) = storage.get(start..start + n * h * w * c) {
            return std::borrow::Cow::Borrowed(rows);
        }
    }
    std::borrow::Cow::Owned(to_channels_last(&floats(t), n, c, h * w))
}

/// Channels-last rows as a `[n, c, rows, cols]` tensor (strided, no copy).
fn from_channels_last(rows: Vec<f32>, n: usize, c: usize, h: usize, w: usize) -> FlexTensor {
    tensor(rows, [n, h, w, c]).permute(&[0, 3, 1, 2])
}

/// A tensor's floats in their logical order.
fn floats(t: &FlexTensor) -> std::borrow::Cow<'_, [f32]> {
    match t.as_slice::<f32>() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(t.to_contiguous().as_slice::<f32>().expect("a contiguous f32 tensor").to_vec()),
    }
}

fn tensor(data: Vec<f32>, shape: impl Into<Shape>) -> FlexTensor {
    FlexTensor::from_data(TensorData::new(data, shape.into()))
}

/// The forward pass on the CPU backend's tensors.
fn run(x: &FlexTensor, w: &FlexTensor, gamma: &FlexTensor, beta: &FlexTensor, residual: Option<&FlexTensor>, options: StepOptions) -> (step::Forward, Shape) {
    let xs = x.shape();
    let ws = w.shape();
    let (n, cin, rows, cols) = (xs[0], xs[1], xs[2], xs[3]);
    let cout = ws[0];
    assert!(ws[1] == cin && ws[2] == ws[3] && (ws[2] == 1 || ws[2] == 3), "a 1x1 or 3x3 convolution's weights");
    let g = Geometry { n, rows, cols };
    let r = residual.map(channels_last);
    let f = step::forward(
        options.kernels,
        g,
        ws[2] * ws[3],
        &channels_last(x),
        cin,
        &floats(w),
        cout,
        &floats(gamma),
        &floats(beta),
        r.as_deref(),
        options.epsilon,
    );
    (f, Shape::new([n, cout, rows, cols]))
}

fn outputs(f: step::Forward, shape: Shape) -> (FlexTensor, FlexTensor, FlexTensor, Saved) {
    let c = f.mean.len();
    (from_channels_last(f.out, shape[0], c, shape[2], shape[3]), tensor(f.mean, [c]), tensor(f.var, [c]), f.saved)
}

impl TowerBackend for Flex {
    fn conv_bn_relu(x: FlexTensor, w: FlexTensor, gamma: FlexTensor, beta: FlexTensor, options: StepOptions) -> StepOutput<Self> {
        let (f, shape) = run(&x, &w, &gamma, &beta, None, options);
        let (out, mean, var, _) = outputs(f, shape);
        StepOutput { out, mean, var }
    }

    fn conv_bn_add_relu(x: FlexTensor, w: FlexTensor, gamma: FlexTensor, beta: FlexTensor, residual: FlexTensor, options: StepOptions) -> StepOutput<Self> {
        let (f, shape) = run(&x, &w, &gamma, &beta, Some(&residual), options);
        let (out, mean, var, _) = outputs(f, shape);
        StepOutput { out, mean, var }
    }
}

/// The saved forward pass with its input, weights and output (shared storage, not copies),
/// shared by the graph's clones of the step.
#[derive(Clone, Debug)]
struct State(std::sync::Arc<(Saved, FlexTensor, FlexTensor, FlexTensor)>);

impl State {
    fn backward(&self, grad: &FlexTensor, want_x: bool) -> step::Grads {
        let (s, x, w, out) = &*self.0;
        step::backward(s, &channels_last(x), &floats(w), &channels_last(out), &channels_last(grad), want_x)
    }
}

#[derive(Debug)]
struct ConvBnRelu;

#[derive(Debug)]
struct ConvBnAddRelu;

/// Registers the gradients of `[x, w, gamma, beta]` and of the residual, for the parents
/// that take part in the graph.
fn register_all(s: &Saved, params: [Option<NodeId>; 4], residual: Option<NodeId>, d: step::Grads, grads: &mut Gradients) {
    let [nx, nw, ng, nb] = params;
    let (n, rows, cols) = (s.g.n, s.g.rows, s.g.cols);
    if let (Some(id), Some(dx)) = (nx, d.x) {
        grads.register::<Flex>(id, from_channels_last(dx, n, s.cin, rows, cols));
    }
    if let Some(id) = nw {
        let k = if s.taps == 9 { 3 } else { 1 };
        grads.register::<Flex>(id, tensor(d.w, [s.cout, s.cin, k, k]));
    }
    if let Some(id) = ng {
        grads.register::<Flex>(id, tensor(d.gamma, [s.cout]));
    }
    if let Some(id) = nb {
        grads.register::<Flex>(id, tensor(d.beta, [s.cout]));
    }
    if let Some(id) = residual {
        grads.register::<Flex>(id, from_channels_last(d.residual, n, s.cout, rows, cols));
    }
}

impl Backward<Flex, 4> for ConvBnRelu {
    type State = State;

    fn backward(self, ops: Ops<State, 4>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let grad = grads.consume::<Flex>(&ops.node);
        let [nx, nw, ng, nb] = ops.parents.map(|p| p.map(|n| n.id));
        let d = ops.state.backward(&grad, nx.is_some());
        register_all(&ops.state.0.0, [nx, nw, ng, nb], None, d, grads);
    }
}

impl Backward<Flex, 5> for ConvBnAddRelu {
    type State = State;

    fn backward(self, ops: Ops<State, 5>, grads: &mut Gradients, _checkpointer: &mut Checkpointer) {
        let grad = grads.consume::<Flex>(&ops.node);
        let [nx, nw, ng, nb, nr] = ops.parents.map(|p| p.map(|n| n.id));
        let d = ops.state.backward(&grad, nx.is_some());
        register_all(&ops.state.0.0, [nx, nw, ng, nb], nr, d, grads);
    }
}

/// The batch statistics as constants of the autodiff graph.
fn constants<C: CheckpointStrategy>(m: FlexTensor, v: FlexTensor) -> (FloatTensor<Autodiff<Flex, C>>, FloatTensor<Autodiff<Flex, C>>) {
    (<Autodiff<Flex, C> as AutodiffBackend>::from_inner(m), <Autodiff<Flex, C> as AutodiffBackend>::from_inner(v))
}

impl<C: CheckpointStrategy> TowerBackend for Autodiff<Flex, C> {
    fn conv_bn_relu(x: FloatTensor<Self>, w: FloatTensor<Self>, gamma: FloatTensor<Self>, beta: FloatTensor<Self>, options: StepOptions) -> StepOutput<Self> {
        let (f, shape) = run(x.primitive(), w.primitive(), gamma.primitive(), beta.primitive(), None, options);
        let (out, m, v, saved) = outputs(f, shape);
        let out = match ConvBnRelu.prepare::<C>([x.node(), w.node(), gamma.node(), beta.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish(State(std::sync::Arc::new((saved, x.primitive().clone(), w.primitive().clone(), out.clone()))), out),
            OpsKind::UnTracked(prep) => prep.finish(out),
        };
        let (mean, var) = constants::<C>(m, v);
        StepOutput { out, mean, var }
    }

    fn conv_bn_add_relu(
        x: FloatTensor<Self>,
        w: FloatTensor<Self>,
        gamma: FloatTensor<Self>,
        beta: FloatTensor<Self>,
        residual: FloatTensor<Self>,
        options: StepOptions,
    ) -> StepOutput<Self> {
        let (f, shape) = run(x.primitive(), w.primitive(), gamma.primitive(), beta.primitive(), Some(residual.primitive()), options);
        let (out, m, v, saved) = outputs(f, shape);
        let out = match ConvBnAddRelu.prepare::<C>([x.node(), w.node(), gamma.node(), beta.node(), residual.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => prep.finish(State(std::sync::Arc::new((saved, x.primitive().clone(), w.primitive().clone(), out.clone()))), out),
            OpsKind::UnTracked(prep) => prep.finish(out),
        };
        let (mean, var) = constants::<C>(m, v);
        StepOutput { out, mean, var }
    }
}
