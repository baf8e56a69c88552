//! How hard the bulk compressors search for matches ([`Level`]), and the search each level
//! buys per format (`Search`); `bulk.rs` hands the level on with the compressors.

/// How hard the compressors search for matches: speed against bytes on the wire. Every
/// level writes the same formats, and any decoder reads any level's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// Short hash chains, no lazy matching: the default, because a server compresses every
    /// PDU of every session and capacity divides by its cost. On the session corpus it is
    /// faster than FreeRDP's compressors and its output smaller (docs/codec.md has the run).
    #[default]
    Fast,
    /// Longer chains and, for RDP 6.0, one step of lazy matching.
    Balanced,
    /// The widest search (latlab's only setting before levels): the fewest bytes, slowest.
    Best,
}

/// The match search a level buys: hash-chain candidates per position, whether RDP 6.0 tries
/// the next position before taking a copy, the match length that ends the search, and how
/// many positions of a copy go into the hash chains (all of a short one; the first few of a
/// long one, which is where the time goes and little is lost).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Search {
    pub chain: usize,
    pub lazy: bool,
    pub good: usize,
    pub insert: usize,
    /// After many positions without a match, search every second, third… position only
    /// (incompressible stretches cost less; MPPC only).
    pub skip: bool,
}

impl Level {
    /// Every level, fastest first.
    pub const ALL: [Level; 3] = [Level::Fast, Level::Balanced, Level::Best];

    /// The CLI name: `fast`, `balanced`, `best`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Fast => "fast",
            Level::Balanced => "balanced",
            Level::Best => "best",
        }
    }

    /// The level a CLI name stands for.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == s)
    }

    /// The search for MPPC (RDP 4.0/5.0, and RDP 6.1's level 2).
    pub(crate) fn mppc(self) -> Search {
        match self {
            Level::Fast => Search { chain: 1, lazy: false, good: 32, insert: 4, skip: true },
            Level::Balanced => Search { chain: 8, lazy: false, good: 128, insert: 32, skip: false },
            Level::Best => Search { chain: 48, lazy: false, good: usize::MAX, insert: usize::MAX, skip: false },
        }
    }

    /// The search for RDP 6.0.
    pub(crate) fn ncrush(self) -> Search {
        match self {
            Level::Fast => Search { chain: 2, lazy: false, good: 32, insert: 4, skip: false },
            Level::Balanced => Search { chain: 16, lazy: true, good: 128, insert: 32, skip: false },
            Level::Best => Search { chain: 64, lazy: true, good: 258, insert: usize::MAX, skip: false },
        }
    }
}
