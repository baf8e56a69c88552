//! Progress on stderr for long work. The timed loop only bumps an atomic counter; a
//! separate thread draws the bar (indicatif hides itself when stderr is not a terminal),
//! so drawing never runs inside a measurement.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// A counter the measurement bumps, watched by a drawing thread.
pub struct Progress {
    done: Arc<AtomicU64>,
    quit: Arc<AtomicBool>,
    drawer: Option<JoinHandle<()>>,
    bar: ProgressBar,
}

impl Progress {
    /// Show `label` with a bar out of `total` steps (hidden when stderr is not a terminal).
    pub fn new(label: &str, total: u64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
        bar.set_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {percent:>3}% {msg} (eta {eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        let done = Arc::new(AtomicU64::new(0));
        let quit = Arc::new(AtomicBool::new(false));
        let (d, q, b) = (done.clone(), quit.clone(), bar.clone());
        let drawer = std::thread::Builder::new()
            .name("latlab-progress".into())
            .spawn(move || {
                while !q.load(Ordering::Relaxed) {
                    b.set_position(d.load(Ordering::Relaxed));
                    std::thread::sleep(Duration::from_millis(125));
                }
            })
            .ok();
        Self { done, quit, drawer, bar }
    }

    /// The counter to bump from the measurement (relaxed stores only).
    pub fn counter(&self) -> Arc<AtomicU64> {
        self.done.clone()
    }

    /// Set the message beside the bar (call between phases, never in a timed loop).
    pub fn message(&self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    /// Stop drawing and clear the bar.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.quit.store(true, Ordering::Relaxed);
        if let Some(h) = self.drawer.take() {
            let _ = h.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}
