//! The network as an ONNX model (opset 13): the same layers as [`crate::nn::model::Net::forward`]
//! (convolutions, batch norm with its running statistics, ReLU, residual adds, the heads'
//! linear layers) with the weights as initializers, so ONNX Runtime, TensorRT or any other
//! ONNX tool runs it unchanged. Input `input` `[batch, planes, rows, cols]`; outputs
//! `policy_logits` `[batch, actions]`, `wdl` `[batch, 3]` (win, draw, loss probabilities for the
//! side to move) and, for networks with the head, `moves_left` `[batch, 1]`.
//!
//! The file is written with a small protobuf encoder of the few ONNX messages it needs (no
//! protobuf compiler or generated code in the build).

use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};

use crate::nn::infer::cpu::host;
use crate::nn::model::Net;

/// The opset the graph is written for (every operator used exists unchanged since).
pub const OPSET: i64 = 13;

/// Protobuf wire encoding, for the fields ONNX needs.
#[derive(Default)]
struct Pb(Vec<u8>);

impl Pb {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }
    fn int(&mut self, field: u32, v: i64) {
        self.key(field, 0);
        self.varint(v as u64);
    }
    fn float(&mut self, field: u32, v: f32) {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn text(&mut self, field: u32, s: &str) {
        self.bytes(field, s.as_bytes());
    }
    fn message(&mut self, field: u32, m: Pb) {
        self.bytes(field, &m.0);
    }
}

/// An attribute of a node.
enum Attr {
    Int(i64),
    Ints(Vec<i64>),
    Float(f32),
}

/// The graph as it is built: nodes, initializers, and a counter for intermediate names.
#[derive(Default)]
struct Graph {
    nodes: Vec<Pb>,
    initializers: Vec<Pb>,
    next: usize,
}

impl Graph {
    fn node(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)]) -> String {
        self.next += 1;
        let out = format!("{}_{}", op.to_lowercase(), self.next);
        self.node_named(op, inputs, attrs, &out);
        out
    }

    fn node_named(&mut self, op: &str, inputs: &[&str], attrs: &[(&str, Attr)], out: &str) {
        let mut n = Pb::default();
        for i in inputs {
            n.text(1, i);
        }
        n.text(2, out);
        n.text(3, out);
        n.text(4, op);
        for (name, a) in attrs {
            let mut p = Pb::default();
            p.text(1, name);
            match a {
                Attr::Float(f) => {
                    p.float(2, *f);
                    p.int(20, 1);
                }
                Attr::Int(i) => {
                    p.int(3, *i);
                    p.int(20, 2);
                }
                Attr::Ints(v) => {
                    for i in v {
                        p.int(8, *i);
                    }
                    p.int(20, 7);
                }
            }
            n.message(5, p);
        }
        self.nodes.push(n);
    }

    /// A float tensor initializer.
    fn weight(&mut self, name: &str, dims: &[usize], values: &[f32]) -> String {
        let mut t = Pb::default();
        for d in dims {
            t.int(1, *d as i64);
        }
        t.int(2, 1); // FLOAT
        t.text(8, name);
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        t.bytes(9, &raw);
        self.initializers.push(t);
        name.to_string()
    }

    fn conv(&mut self, x: &str, c: &Conv2d, name: &str) -> String {
        let dims = c.weight.val().dims();
        let w = self.weight(&format!("{name}.weight"), &dims, &host(c.weight.val()));
        let pad = (dims[2] / 2) as i64;
        let mut inputs = vec![x.to_string(), w];
        if let Some(b) = &c.bias {
            inputs.push(self.weight(&format!("{name}.bias"), &[dims[0]], &host(b.val())));
        }
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        self.node("Conv", &refs, &[("kernel_shape", Attr::Ints(vec![dims[2] as i64, dims[3] as i64])), ("pads", Attr::Ints(vec![pad; 4]))])
    }

    fn batch_norm(&mut self, x: &str, b: &BatchNorm, name: &str) -> String {
        let n = b.gamma.val().dims()[0];
        let s = self.weight(&format!("{name}.weight"), &[n], &host(b.gamma.val()));
        let o = self.weight(&format!("{name}.bias"), &[n], &host(b.beta.val()));
        let m = self.weight(&format!("{name}.running_mean"), &[n], &host(b.running_mean.value()));
        let v = self.weight(&format!("{name}.running_var"), &[n], &host(b.running_var.value()));
        self.node("BatchNormalization", &[x, &s, &o, &m, &v], &[("epsilon", Attr::Float(b.epsilon as f32))])
    }

    /// Conv, batch norm and (unless `residual` is given, which is added first) ReLU.
    fn conv_bn_relu(&mut self, x: &str, c: &Conv2d, b: &BatchNorm, conv: &str, bn: &str) -> String {
        let y = self.conv(x, c, conv);
        let y = self.batch_norm(&y, b, bn);
        self.node("Relu", &[&y], &[])
    }

    /// A linear layer (burn stores the weight as `[inputs, outputs]`: a plain Gemm).
    fn linear(&mut self, x: &str, l: &Linear, name: &str) -> String {
        let [i, o] = l.weight.val().dims();
        let w = self.weight(&format!("{name}.weight"), &[i, o], &host(l.weight.val()));
        let b = match &l.bias {
            Some(b) => host(b.val()),
            None => vec![0.0; o],
        };
        let b = self.weight(&format!("{name}.bias"), &[o], &b);
        self.node("Gemm", &[x, &w, &b], &[])
    }
}

fn value_info(name: &str, dims: &[Option<usize>]) -> Pb {
    let mut shape = Pb::default();
    for d in dims {
        let mut dim = Pb::default();
        match d {
            Some(v) => dim.int(1, *v as i64),
            None => dim.text(2, "batch"),
        }
        shape.message(1, dim);
    }
    let mut tensor = Pb::default();
    tensor.int(1, 1); // FLOAT
    tensor.message(2, shape);
    let mut ty = Pb::default();
    ty.message(1, tensor);
    let mut v = Pb::default();
    v.text(1, name);
    v.message(2, ty);
    v
}

/// The ONNX model of `net`, as the bytes of a `.onnx` file; `doc` goes into its doc string
/// (the network's id and rules).
pub fn onnx_model(net: &Net, doc: &str) -> Vec<u8> {
    let shape = net.shape();
    let p = net.parts();
    let mut g = Graph::default();
    let mut x = g.conv_bn_relu("input", p.stem_conv, p.stem_bn, "stem_conv", "stem_bn");
    for (i, (c1, b1, c2, b2)) in p.blocks.iter().enumerate() {
        let y = g.conv_bn_relu(&x, c1, b1, &format!("blocks.{i}.conv1"), &format!("blocks.{i}.bn1"));
        let y = g.conv(&y, c2, &format!("blocks.{i}.conv2"));
        let y = g.batch_norm(&y, b2, &format!("blocks.{i}.bn2"));
        let y = g.node("Add", &[&y, &x], &[]);
        x = g.node("Relu", &[&y], &[]);
    }
    let pol = g.conv_bn_relu(&x, p.policy_conv, p.policy_bn, "policy_conv", "policy_bn");
    let pol = g.conv(&pol, p.policy_out, "policy_out");
    g.node_named("Flatten", &[&pol], &[("axis", Attr::Int(1))], "policy_logits");
    let v = g.conv_bn_relu(&x, p.value_conv, p.value_bn, "value_conv", "value_bn");
    let v = g.node("Flatten", &[&v], &[("axis", Attr::Int(1))]);
    let v = g.linear(&v, p.value_fc1, "value_fc1");
    let v = g.node("Relu", &[&v], &[]);
    let v = g.linear(&v, p.value_fc2, "value_fc2");
    g.node_named("Softmax", &[&v], &[("axis", Attr::Int(1))], "wdl");
    if let Some(h) = p.moves_left {
        let m = g.conv_bn_relu(&x, &h.conv, &h.bn, "moves_left.conv", "moves_left.bn");
        let m = g.node("Flatten", &[&m], &[("axis", Attr::Int(1))]);
        let m = g.linear(&m, &h.fc1, "moves_left.fc1");
        let m = g.node("Relu", &[&m], &[]);
        let m = g.linear(&m, &h.fc2, "moves_left.fc2");
        g.node_named("Relu", &[&m], &[], "moves_left");
    }

    let mut graph = Pb::default();
    for n in g.nodes {
        graph.message(1, n);
    }
    graph.text(2, "junglezero");
    for t in g.initializers {
        graph.message(5, t);
    }
    graph.message(11, value_info("input", &[None, Some(shape.planes), Some(shape.rows), Some(shape.cols)]));
    graph.message(12, value_info("policy_logits", &[None, Some(shape.actions())]));
    graph.message(12, value_info("wdl", &[None, Some(3)]));
    if p.moves_left.is_some() {
        graph.message(12, value_info("moves_left", &[None, Some(1)]));
    }
    let mut model = Pb::default();
    model.int(1, 7); // IR version 7 (ONNX 1.7+; opset 13 needs it)
    model.text(2, "junglezero");
    model.text(3, env!("CARGO_PKG_VERSION"));
    model.text(6, doc);
    model.message(7, graph);
    let mut opset = Pb::default();
    opset.text(1, "");
    opset.int(2, OPSET);
    model.message(8, opset);
    model.0
}
