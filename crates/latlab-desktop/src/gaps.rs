//! The gaps between a typist's keys: every one the interval asked for, or each drawn about it
//! so the keys fall at every phase of a server that updates on a timer. Typed at a fixed
//! interval that is a multiple of such a timer's period, every key lands at one phase of it
//! and the figure is that phase's, not the server's.

use crate::workload::Rng;

/// How a typist spaces its keys.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum KeyGaps {
    /// Every gap exactly the interval.
    Fixed,
    /// Each gap uniform over (1 − `spread`) … (1 + `spread`) times the interval, from a
    /// generator seeded with `seed`: the mean is the interval, the rate the one asked for.
    Jittered {
        /// Half the width of the gaps' range, as a fraction of the interval (0 to 1).
        spread: f64,
        /// The generator's seed (the same seed, the same gaps).
        seed: u64,
    },
}

impl Default for KeyGaps {
    /// Jittered by [`crate::defaults::KEY_GAP_SPREAD`].
    fn default() -> Self {
        KeyGaps::Jittered { spread: crate::defaults::KEY_GAP_SPREAD, seed: crate::defaults::KEY_GAP_SEED }
    }
}

impl KeyGaps {
    /// The distribution, as the record states it.
    pub fn describe(&self) -> String {
        match *self {
            KeyGaps::Fixed => "fixed: every gap the interval".into(),
            KeyGaps::Jittered { spread, seed } => {
                format!("uniform over {}–{}× the interval (seed {seed})", 1.0 - spread, 1.0 + spread)
            }
        }
    }

    /// The gaps for `interval_ns`, one per key.
    pub fn gaps(&self, interval_ns: u64) -> Gaps {
        let seed = match *self {
            KeyGaps::Fixed => 0,
            KeyGaps::Jittered { seed, .. } => seed,
        };
        Gaps { kind: *self, interval_ns, rng: Rng::new(seed ^ 0x6761_7073) }
    }
}

/// A stream of gaps (see [`KeyGaps::gaps`]).
#[derive(Debug, Clone)]
pub struct Gaps {
    kind: KeyGaps,
    interval_ns: u64,
    rng: Rng,
}

impl Gaps {
    /// The next gap, ns.
    pub fn next_ns(&mut self) -> u64 {
        match self.kind {
            KeyGaps::Fixed => self.interval_ns,
            KeyGaps::Jittered { spread, .. } => {
                // 53 random bits: a uniform draw in [0, 1).
                let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let spread = spread.clamp(0.0, 1.0);
                (self.interval_ns as f64 * (1.0 - spread + 2.0 * spread * u)).round() as u64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_gaps_are_the_interval_and_jittered_ones_keep_its_mean_within_their_range() {
        let mut f = KeyGaps::Fixed.gaps(250);
        assert!((0..10).all(|_| f.next_ns() == 250));
        let mut j = KeyGaps::Jittered { spread: 0.5, seed: 3 }.gaps(250_000_000);
        let v: Vec<u64> = (0..10_000).map(|_| j.next_ns()).collect();
        assert!(v.iter().all(|&g| (125_000_000..=375_000_000).contains(&g)));
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64;
        assert!((mean / 250e6 - 1.0).abs() < 0.01, "{mean}");
        // Seeded: the same gaps again.
        let mut again = KeyGaps::Jittered { spread: 0.5, seed: 3 }.gaps(250_000_000);
        assert_eq!((0..10_000).map(|_| again.next_ns()).collect::<Vec<_>>(), v);
    }

    #[test]
    fn jittered_keys_fall_at_every_phase_of_a_timer_that_fixed_ones_sample_at_one() {
        // A server capturing every 62.5 ms, keys every 250 ms (four periods): quarters of the
        // period each key's time falls in.
        let period = 62_500_000u64;
        let quarters = |g: KeyGaps| {
            let mut s = g.gaps(250_000_000);
            let mut at = 7_000_000u64;
            let mut q = [0u32; 4];
            for _ in 0..400 {
                q[(at % period * 4 / period) as usize] += 1;
                at += s.next_ns();
            }
            q
        };
        assert_eq!(quarters(KeyGaps::Fixed), [400, 0, 0, 0]);
        let j = quarters(KeyGaps::default());
        assert!(j.iter().all(|&n| n >= 60), "{j:?}");
        assert!(KeyGaps::default().describe().contains("0.5–1.5×"));
    }
}
