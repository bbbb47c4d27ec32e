//! The worker pool every producer of games shares (self-play workers, the alpha-beta teacher):
//! threads produce records into a channel; the calling thread hands each to a callback, in the
//! order they finish, and ticks progress about every 200 ms; an error from the callback stops
//! the workers (raising the flag each of them watches) and is returned.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `work` on `workers` threads until each returns. `work` sends its items on the channel
/// it is given and returns when the flag rises (or its work is done); `on_item` receives them
/// on this thread; `on_tick` runs about every 200 ms and once at the end.
pub fn run_pool<T: Send, E>(
    workers: usize,
    work: impl Fn(mpsc::Sender<T>, &AtomicBool) + Sync,
    mut on_item: impl FnMut(T) -> Result<(), E>,
    mut on_tick: impl FnMut(),
) -> Result<(), E> {
    let (tx, rx) = mpsc::channel();
    let quit = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            let tx = tx.clone();
            let (work, quit) = (&work, &quit);
            scope.spawn(move || work(tx, quit));
        }
        drop(tx);
        let mut result = Ok(());
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(item) => {
                    if let Err(e) = on_item(item) {
                        quit.store(true, Ordering::Relaxed);
                        result = Err(e);
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            on_tick();
        }
        on_tick();
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_item_arrives_and_an_error_stops_the_workers() {
        let next = AtomicU64::new(0);
        let mut got = Vec::new();
        let work = |tx: mpsc::Sender<u64>, _: &AtomicBool| {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= 100 || tx.send(i).is_err() {
                    return;
                }
            }
        };
        let collect = |i| {
            got.push(i);
            Ok::<(), ()>(())
        };
        run_pool(3, work, collect, || {}).unwrap();
        got.sort_unstable();
        assert_eq!(got, (0..100).collect::<Vec<_>>());

        // A callback that fails after five items: the workers see the flag and stop.
        let produced = AtomicU64::new(0);
        let endless = |tx: mpsc::Sender<u64>, quit: &AtomicBool| {
            while !quit.load(Ordering::Relaxed) {
                produced.fetch_add(1, Ordering::Relaxed);
                if tx.send(1).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        let mut n = 0;
        let count = |_| {
            n += 1;
            if n <= 5 { Ok(()) } else { Err("full") }
        };
        let e = run_pool(2, endless, count, || {});
        assert_eq!(e, Err("full"));
        assert!(produced.load(Ordering::Relaxed) < 10_000);
    }
}
