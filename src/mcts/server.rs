//! One inference thread per device. Self-play workers run their searches on their own threads
//! and hand each batch of leaves to a single server thread, which merges the batches waiting
//! (up to a maximum, or until a short wait runs out) into one call of the network and hands
//! every worker its rows back. A GPU is only cheap per position in batches of hundreds or
//! thousands, more than one worker's games in flight provide.
//!
//! The server needs an evaluator that reads only the encoded inputs ([`BatchEvaluator`]), so
//! that rows from different workers, even of different games, can share one call.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::time::{Duration, Instant};

use super::evaluator::{Evaluator, Outputs};
use crate::game::Encode;

/// An evaluator that reads only the encoded inputs (a network), so that batches from several
/// threads can be merged into one call.
pub trait BatchEvaluator: Send + Sync {
    /// Policy logits (`n × self.actions()`), values and moves left for `n` positions encoded in
    /// `inputs` (`n × self.input_size()` values), written as [`Outputs`] describes.
    fn evaluate_inputs(&self, inputs: &[f32], n: usize, out: Outputs<'_>);
    /// Policy entries per position.
    fn actions(&self) -> usize;
    /// Input values per position.
    fn input_size(&self) -> usize;
    fn name(&self) -> String;
}

/// When the server thread calls the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerConfig {
    /// Call as soon as this many positions wait (a single larger request runs alone).
    pub max_batch: usize,
    /// Otherwise call once every client has a request waiting, or once the first request has
    /// waited this long.
    pub max_wait: Duration,
    /// Threads that send requests (the self-play workers).
    pub clients: usize,
}

/// What the device saw.
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Network calls.
    pub calls: AtomicU64,
    /// Positions evaluated.
    pub positions: AtomicU64,
    /// Requests (client batches) served.
    pub requests: AtomicU64,
}

impl ServerStats {
    /// Positions per network call.
    pub fn mean_batch(&self) -> f64 {
        self.positions.load(Ordering::Relaxed) as f64 / self.calls.load(Ordering::Relaxed).max(1) as f64
    }
}

/// A client's buffers: the inputs going out, the outputs coming back. They travel with the
/// request and come home with the reply, so a worker allocates them once.
#[derive(Default)]
struct Buffers {
    inputs: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
    moves_left: Vec<f32>,
    draw: Vec<f32>,
}

struct Request {
    n: usize,
    buffers: Buffers,
    reply: SyncSender<Buffers>,
}

/// The client side of a running server: an [`Evaluator`] for any game whose encoding matches
/// the server's network. Shared by reference among the worker threads.
pub struct InferenceClient<'s> {
    tx: Sender<Request>,
    actions: usize,
    input_size: usize,
    name: String,
    stats: &'s ServerStats,
}

thread_local! {
    /// This thread's buffers and reply channel, kept between requests.
    static CLIENT: RefCell<Option<(Buffers, SyncSender<Buffers>, Receiver<Buffers>)>> = const { RefCell::new(None) };
}

impl<G: Encode> Evaluator<G> for InferenceClient<'_> {
    fn evaluate(&self, states: &[&G], inputs: &[f32], out: Outputs<'_>) {
        assert!(G::ACTIONS == self.actions && G::INPUT_SIZE == self.input_size, "the inference server's network does not fit {}", G::SHAPE.game);
        self.request(inputs, states.len(), out);
    }

    fn name(&self) -> String {
        format!("{} (inference server)", self.name)
    }
}

impl InferenceClient<'_> {
    /// What the server's device has done so far.
    pub fn stats(&self) -> &ServerStats {
        self.stats
    }

    /// Sends `n` encoded positions to the server and waits for their outputs.
    pub fn request(&self, inputs: &[f32], n: usize, out: Outputs<'_>) {
        if n == 0 {
            return;
        }
        CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            let (buffers, reply, rx) = c.get_or_insert_with(|| {
                let (tx, rx) = mpsc::sync_channel(1);
                (Buffers::default(), tx, rx)
            });
            let mut b = std::mem::take(buffers);
            b.inputs.clear();
            b.inputs.extend_from_slice(&inputs[..n * self.input_size]);
            self.tx.send(Request { n, buffers: b, reply: reply.clone() }).expect("the inference server outlives its clients");
            let b = rx.recv().expect("the inference server answers every request");
            out.policy[..n * self.actions].copy_from_slice(&b.policy[..n * self.actions]);
            out.value[..n].copy_from_slice(&b.value[..n]);
            out.moves_left[..n].copy_from_slice(&b.moves_left[..n]);
            out.draw[..n].copy_from_slice(&b.draw[..n]);
            *buffers = b;
        });
    }
}

/// Runs `f` with a client of a server thread that evaluates with `inner`; the server stops
/// when `f` returns. Statistics land in `stats`.
pub fn with_server<E: BatchEvaluator, R>(inner: &E, config: ServerConfig, stats: &ServerStats, f: impl FnOnce(&InferenceClient<'_>) -> R) -> R {
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<Request>();
        scope.spawn(move || serve(inner, config, stats, rx));
        let client = InferenceClient { tx, actions: inner.actions(), input_size: inner.input_size(), name: inner.name(), stats };
        f(&client)
        // `client` (the last sender) drops here and the server thread ends.
    })
}

/// The server loop: gather, call, scatter, until every client is gone.
fn serve<E: BatchEvaluator>(inner: &E, config: ServerConfig, stats: &ServerStats, rx: Receiver<Request>) {
    let (actions, input_size) = (inner.actions(), inner.input_size());
    let mut waiting: Vec<Request> = Vec::new();
    let mut scratch = Scratch::default();
    while let Ok(first) = rx.recv() {
        let deadline = Instant::now() + config.max_wait;
        let mut total = first.n;
        waiting.push(first);
        while total < config.max_batch && waiting.len() < config.clients.max(1) {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(r) if total + r.n > config.max_batch => {
                    // Too big to join: this call goes now, the newcomer opens the next one.
                    serve_batch(inner, &mut waiting, total, (actions, input_size), &mut scratch, stats);
                    total = r.n;
                    waiting.push(r);
                }
                Ok(r) => {
                    total += r.n;
                    waiting.push(r);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        serve_batch(inner, &mut waiting, total, (actions, input_size), &mut scratch, stats);
    }
}

/// The server's merged batch, kept between calls.
#[derive(Default)]
struct Scratch {
    inputs: Vec<f32>,
    out: Buffers,
}

/// One network call over every waiting request; each gets its rows back.
fn serve_batch<E: BatchEvaluator>(
    inner: &E,
    waiting: &mut Vec<Request>,
    total: usize,
    (actions, input_size): (usize, usize),
    scratch: &mut Scratch,
    stats: &ServerStats,
) {
    let Scratch { inputs, out: Buffers { policy, value, moves_left, draw, .. } } = scratch;
    if waiting.is_empty() {
        return;
    }
    inputs.clear();
    for r in waiting.iter() {
        inputs.extend_from_slice(&r.buffers.inputs[..r.n * input_size]);
    }
    policy.resize(total * actions, 0.0);
    value.resize(total, 0.0);
    moves_left.resize(total, 0.0);
    draw.resize(total, 0.0);
    inner.evaluate_inputs(
        inputs,
        total,
        Outputs { policy: &mut policy[..total * actions], value: &mut value[..total], moves_left: &mut moves_left[..total], draw: &mut draw[..total] },
    );
    stats.calls.fetch_add(1, Ordering::Relaxed);
    stats.positions.fetch_add(total as u64, Ordering::Relaxed);
    stats.requests.fetch_add(waiting.len() as u64, Ordering::Relaxed);
    let mut row = 0;
    for mut r in waiting.drain(..) {
        let n = r.n;
        let b = &mut r.buffers;
        b.policy.clear();
        b.policy.extend_from_slice(&policy[row * actions..(row + n) * actions]);
        b.value.clear();
        b.value.extend_from_slice(&value[row..row + n]);
        b.moves_left.clear();
        b.moves_left.extend_from_slice(&moves_left[row..row + n]);
        b.draw.clear();
        b.draw.extend_from_slice(&draw[row..row + n]);
        row += n;
        // A client that went away (its thread panicked) no longer needs an answer.
        let _ = r.reply.send(r.buffers);
    }
}

/// The evaluator the self-play workers use: the network itself, or a client of its server.
pub enum Served<'a, E> {
    Direct(&'a E),
    Server(&'a InferenceClient<'a>),
}

impl<G: Encode, E: Evaluator<G>> Evaluator<G> for Served<'_, E> {
    fn evaluate(&self, states: &[&G], inputs: &[f32], out: Outputs<'_>) {
        match self {
            Served::Direct(e) => e.evaluate(states, inputs, out),
            Served::Server(c) => c.evaluate(states, inputs, out),
        }
    }

    fn name(&self) -> String {
        match self {
            Served::Direct(e) => e.name(),
            Served::Server(c) => Evaluator::<G>::name(*c),
        }
    }
}

/// Runs `f` with `inner` behind a server thread when `config` is given, or with `inner` itself.
pub fn maybe_served<E: BatchEvaluator, R>(inner: &E, config: Option<ServerConfig>, stats: &ServerStats, f: impl FnOnce(&Served<'_, E>) -> R) -> R {
    match config {
        Some(c) => with_server(inner, c, stats, |client| f(&Served::Server(client))),
        None => f(&Served::Direct(inner)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Policy row i = input's first value + action index; value = first input value / 100.
    struct Echo {
        calls: std::sync::Mutex<Vec<usize>>,
    }

    impl BatchEvaluator for Echo {
        fn evaluate_inputs(&self, inputs: &[f32], n: usize, out: Outputs<'_>) {
            self.calls.lock().unwrap().push(n);
            for i in 0..n {
                let x = inputs[i * 2];
                for a in 0..3 {
                    out.policy[i * 3 + a] = x + a as f32;
                }
                out.value[i] = x / 100.0;
                out.moves_left[i] = inputs[i * 2 + 1];
                out.draw[i] = x / 1000.0;
            }
        }
        fn actions(&self) -> usize {
            3
        }
        fn input_size(&self) -> usize {
            2
        }
        fn name(&self) -> String {
            "echo".into()
        }
    }

    #[test]
    fn every_worker_gets_its_own_rows_back_from_merged_calls() {
        let echo = Echo { calls: Default::default() };
        let stats = ServerStats::default();
        let config = ServerConfig { max_batch: 1000, max_wait: Duration::from_millis(20), clients: 4 };
        with_server(&echo, config, &stats, |client| {
            std::thread::scope(|s| {
                for w in 0..4 {
                    s.spawn(move || {
                        for round in 0..50 {
                            let n = 1 + (w + round) % 5;
                            let inputs: Vec<f32> = (0..n).flat_map(|i| [(w * 1000 + round * 10 + i) as f32, i as f32]).collect();
                            let (mut p, mut v, mut m, mut d) = (vec![0.0; n * 3], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                            client.request(&inputs, n, Outputs { policy: &mut p, value: &mut v, moves_left: &mut m, draw: &mut d });
                            for i in 0..n {
                                let x = inputs[i * 2];
                                assert_eq!(&p[i * 3..i * 3 + 3], &[x, x + 1.0, x + 2.0]);
                                assert_eq!((v[i], m[i], d[i]), (x / 100.0, i as f32, x / 1000.0));
                            }
                        }
                    });
                }
            });
        });
        let calls = echo.calls.lock().unwrap();
        let positions: usize = calls.iter().sum();
        assert_eq!(positions as u64, stats.positions.load(Ordering::Relaxed));
        assert_eq!(stats.requests.load(Ordering::Relaxed), 200);
        // Four workers each wait for their answer, so merged calls hold several requests.
        assert!(calls.len() < 200 && calls.iter().any(|&n| n > 5), "calls: {calls:?}");
    }

    #[test]
    fn a_full_batch_goes_at_once_and_a_lone_client_does_not_wait() {
        let echo = Echo { calls: Default::default() };
        let stats = ServerStats::default();
        // One client and a long wait: the server must not sit on the only request.
        let config = ServerConfig { max_batch: 4, max_wait: Duration::from_secs(30), clients: 1 };
        let start = Instant::now();
        with_server(&echo, config, &stats, |client| {
            for n in [1usize, 4, 9] {
                let inputs = vec![1.0; n * 2];
                let (mut p, mut v, mut m, mut d) = (vec![0.0; n * 3], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                client.request(&inputs, n, Outputs { policy: &mut p, value: &mut v, moves_left: &mut m, draw: &mut d });
                assert!(v.iter().all(|&x| x == 0.01));
            }
        });
        assert!(start.elapsed() < Duration::from_secs(10), "waited for a batch that could not grow");
        // A request larger than the maximum runs alone, whole.
        assert_eq!(*echo.calls.lock().unwrap(), vec![1, 4, 9]);
    }
}
