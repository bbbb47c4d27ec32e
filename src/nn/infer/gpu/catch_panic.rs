//! A panic inside a library call as one error line. The NVIDIA path's bindings (`cudarc`) unwrap
//! a few failures instead of returning them (a symbol missing from a loaded library, the
//! allocation of cuBLASLt's workspace, binding the context to a thread); where they cannot be
//! ruled out by checking first, the call runs inside [`catch`].

use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`catch`].
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// The message of the panic caught there.
    static MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`; a panic in it becomes `Err` with the panic's message and place on one line, and
/// nothing is printed. Panics anywhere else (other threads, or this one outside `catch`) are
/// reported as before: the panic hook installed on first use hands them to the hook it replaced.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if INSIDE.with(Cell::get) {
                let place = info.location().map(|l| format!(" (at {}:{})", l.file(), l.line())).unwrap_or_default();
                MESSAGE.with(|m| *m.borrow_mut() = Some(format!("{}{place}", one_line(info.payload()))));
            } else {
                previous(info);
            }
        }));
    });
    let outer = INSIDE.with(|inside| inside.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    INSIDE.with(|inside| inside.set(outer));
    result.map_err(|payload| MESSAGE.with(|m| m.borrow_mut().take()).unwrap_or_else(|| one_line(&*payload)))
}

/// A panic's message with its whitespace (line breaks included) collapsed to single spaces.
fn one_line(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("a panic without a message");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::catch;

    #[test]
    fn a_panic_inside_becomes_one_line_with_its_place_and_a_value_passes_through() {
        assert_eq!(catch(|| 7), Ok(7));
        let e = catch(|| -> u32 { panic!("Missing symbol {}:\n  undefined", "cudnnGetLastErrorString") }).unwrap_err();
        assert!(e.starts_with("Missing symbol cudnnGetLastErrorString: undefined (at src/nn/infer/gpu/catch_panic.rs:"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        // Nested: the inner panic is the inner call's error, and the outer call still catches
        // its own afterwards.
        let e = catch(|| -> u8 {
            let inner = catch(|| -> u8 { panic!("inner") }).unwrap_err();
            assert!(inner.starts_with("inner (at "), "{inner}");
            panic!("outer")
        })
        .unwrap_err();
        assert!(e.starts_with("outer (at "), "{e}");
        // A later call on the same thread starts clean.
        assert_eq!(catch(|| "fine"), Ok("fine"));
    }
}
