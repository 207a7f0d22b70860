//! The counter a long run advances so that another thread can draw a progress bar, and through
//! which that thread can ask the run to stop (Ctrl-C): its top bit.
//!
//! A run that sees the bit stops at its next block and returns what it has, which is partial;
//! only the one who set the bit can have set it, and it discards the result. Stopping this way
//! lets an interrupted command wait for the engine's threads before it exits, instead of leaving
//! them inside the engine while the interpreter shuts down (which aborted the process).

use std::sync::atomic::{AtomicU64, Ordering};

/// Set on the counter to ask the run to stop.
pub const STOP: u64 = 1 << 63;

/// Adds `n` to the counter, if there is one; false when a stop has been asked.
#[inline]
pub fn advance(counter: Option<&AtomicU64>, n: u64) -> bool {
    counter.is_none_or(|c| c.fetch_add(n, Ordering::Relaxed) & STOP == 0)
}

/// Whether a stop has been asked.
#[inline]
pub fn stopped(counter: Option<&AtomicU64>) -> bool {
    counter.is_some_and(|c| c.load(Ordering::Relaxed) & STOP != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_bit_stops_and_the_count_goes_on_below_it() {
        let c = AtomicU64::new(0);
        assert!(advance(Some(&c), 5) && !stopped(Some(&c)));
        c.fetch_or(STOP, Ordering::Relaxed);
        assert!(!advance(Some(&c), 5) && stopped(Some(&c)));
        assert_eq!(c.load(Ordering::Relaxed) & !STOP, 10);
        assert!(advance(None, 1) && !stopped(None));
    }
}
