//! The memory lock lasts only as long as its guard: a lock left behind would pin every later
//! allocation of the process. Alone in its file, so no other test locks or unlocks meanwhile.

fn locked_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmLck:")).expect("VmLck in /proc/self/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn the_lock_ends_with_its_guard() {
    let (guard, cap) = latlab_sys::platform::lock_memory();
    if !cap.granted {
        drop(guard);
        latlab_model::testing::skip(&format!("mlockall refused here: {}", cap.advice.unwrap_or_default()));
        return;
    }
    // Memory mapped after the lock is locked too (MCL_FUTURE).
    let later = vec![1u8; 4 << 20];
    assert!(locked_kib() >= 4096, "{} KiB locked", locked_kib());
    drop(guard);
    assert_eq!(locked_kib(), 0);
    drop(later);
}
