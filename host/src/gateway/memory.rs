//! Gives the memory a burst of requests freed back to the system once the gateway is idle.
//!
//! glibc's malloc keeps the pages it took for a burst after the burst has freed them, ready for the
//! next one. Measured with heaptrack (six bursts of 1,000 concurrent streams, BENCHMARKS.md 6e): the
//! live heap came back to the same 28 MiB after every burst (no leak: the reqwest pool's idle
//! upstream connections, released 90-180 s later), while the resident size stayed at 95-140 MiB and
//! crept up by fragmentation; `MALLOC_ARENA_MAX=2` changed nothing, one `malloc_trim(0)` took it
//! from 123 to 67 MiB.
//!
//! So after a busy period, when no request is in flight, the gateway calls `malloc_trim(0)` once.
//! Not while requests run: the trim walks the heap under malloc's locks, and a request allocating
//! then would wait for it. Elsewhere than glibc there is nothing to call (musl and the other
//! allocators return memory their own way).

use std::sync::Arc;
use std::time::Duration;

use super::Gateway;

/// How often the gateway looks whether it went idle after answering.
pub const IDLE_CHECK: Duration = Duration::from_secs(5);

/// Whether to trim now: requests were answered since the last trim (`answered` counts them all),
/// and none is in flight.
pub fn should_trim(answered: u64, answered_at_last_trim: u64, in_flight: usize) -> bool {
    answered != answered_at_last_trim && in_flight == 0
}

/// Runs for the life of the gateway: every [`IDLE_CHECK`], trims if [`should_trim`] says so.
pub async fn trim_when_idle(gateway: Arc<Gateway>) {
    let mut at_last_trim = 0;
    let mut tick = tokio::time::interval(IDLE_CHECK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let answered = gateway.answered();
        if should_trim(answered, at_last_trim, gateway.running_count()) {
            at_last_trim = answered;
            let _ = tokio::task::spawn_blocking(release_free_memory).await;
        }
    }
}

/// Hands malloc's free pages back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_memory() {
    // SAFETY: malloc_trim takes no pointers and only returns free memory; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() {}

#[cfg(test)]
mod tests {
    use super::should_trim;

    #[test]
    fn trims_once_after_answers_and_only_when_nothing_is_in_flight() {
        // Nothing answered since the start or since the last trim: nothing to give back.
        assert!(!should_trim(0, 0, 0));
        assert!(!should_trim(40, 40, 0));
        // Answers since, but requests still running: later.
        assert!(!should_trim(41, 40, 1));
        assert!(!should_trim(1000, 0, 12));
        // Answers since, and idle.
        assert!(should_trim(41, 40, 0));
        assert!(should_trim(1000, 0, 0));
    }
}
