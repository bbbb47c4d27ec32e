//! The analysis engine's positions waiting for a search: a bounded queue that hands out the
//! highest priority first and, among equal priorities, the first come. A producer waits while it
//! is full, so the input is read no faster than it is searched.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex, MutexGuard};

pub struct Waiting<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
    capacity: usize,
}

struct State<T> {
    heap: BinaryHeap<Entry<T>>,
    /// Arrival number of the next item (first come, first served among equal priorities).
    next: u64,
    closed: bool,
}

struct Entry<T> {
    priority: i64,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Entry<T> {}

impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Entry<T> {
    /// The greatest is handed out first: higher priority, then earlier arrival.
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority.cmp(&other.priority).then(other.seq.cmp(&self.seq))
    }
}

impl<T> Waiting<T> {
    /// A queue that holds at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Waiting<T> {
        Waiting { state: Mutex::new(State { heap: BinaryHeap::new(), next: 0, closed: false }), changed: Condvar::new(), capacity: capacity.max(1) }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds `item`, waiting while the queue is full; false (the item dropped) once closed.
    pub fn push(&self, item: T, priority: i64) -> bool {
        let mut s = self.lock();
        while s.heap.len() >= self.capacity && !s.closed {
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.closed {
            return false;
        }
        let seq = s.next;
        s.next += 1;
        s.heap.push(Entry { priority, seq, item });
        self.changed.notify_all();
        true
    }

    /// The next item, waiting while none waits; `None` once the queue is closed and empty.
    pub fn pop(&self) -> Option<T> {
        let mut s = self.lock();
        loop {
            if let Some(e) = s.heap.pop() {
                self.changed.notify_all();
                return Some(e.item);
            }
            if s.closed {
                return None;
            }
            s = self.changed.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// No more items come: `pop` hands out what waits, then `None`.
    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// Takes out every waiting item `drop` accepts, in the order they would have been handed
    /// out.
    pub fn remove(&self, mut drop: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut s = self.lock();
        let mut all = std::mem::take(&mut s.heap).into_sorted_vec();
        all.reverse();
        let (out, keep): (Vec<Entry<T>>, Vec<Entry<T>>) = all.into_iter().partition(|e| drop(&e.item));
        s.heap = keep.into_iter().collect();
        self.changed.notify_all();
        out.into_iter().map(|e| e.item).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_highest_priority_comes_first_then_the_first_come() {
        let q = Waiting::new(8);
        for (item, priority) in [("a", 0), ("b", 5), ("c", 0), ("d", 5), ("e", -1)] {
            assert!(q.push(item, priority));
        }
        q.close();
        let order: Vec<&str> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, ["b", "d", "a", "c", "e"]);
        assert!(!q.push("late", 9), "a closed queue takes nothing");
    }

    #[test]
    fn removed_items_leave_the_rest_in_order() {
        let q = Waiting::new(8);
        for (item, priority) in [(1, 0), (2, 3), (3, 0), (4, 3)] {
            q.push(item, priority);
        }
        assert_eq!(q.remove(|&i| i % 2 == 0), [2, 4]);
        q.close();
        assert_eq!(std::iter::from_fn(|| q.pop()).collect::<Vec<_>>(), [1, 3]);
    }

    #[test]
    fn a_full_queue_holds_the_producer_until_an_item_is_taken() {
        let q = std::sync::Arc::new(Waiting::new(1));
        q.push(1, 0);
        let producer = {
            let q = q.clone();
            std::thread::spawn(move || q.push(2, 0))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!producer.is_finished(), "the second push waits while the queue is full");
        assert_eq!(q.pop(), Some(1));
        assert!(producer.join().unwrap());
        assert_eq!(q.pop(), Some(2));
    }
}
