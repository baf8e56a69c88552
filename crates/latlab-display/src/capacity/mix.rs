//! The mix of users `display capacity` ramps: the kinds, how a mix is written and read, and
//! which kind each session is.

use latlab_desktop::workload::WorkloadKind;

/// A kind of user in the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserKind {
    /// Types into the editor; every key timed to pixels.
    Typist,
    /// Opens menus and moves down their items.
    Menu,
    /// Scrolls a document.
    Scroller,
    /// Watches a page with an animated banner and a news ticker (seed 003's animated page).
    Banner,
    /// Reads: an idle document with a blinking caret.
    Reader,
}

impl UserKind {
    /// Every kind.
    pub const ALL: [UserKind; 5] =
        [UserKind::Typist, UserKind::Menu, UserKind::Scroller, UserKind::Banner, UserKind::Reader];

    /// The name in `--mix` and in metrics.
    pub fn name(self) -> &'static str {
        match self {
            UserKind::Typist => "typist",
            UserKind::Menu => "menu",
            UserKind::Scroller => "scroller",
            UserKind::Banner => "banner",
            UserKind::Reader => "reader",
        }
    }

    pub(super) fn workload(self) -> WorkloadKind {
        match self {
            UserKind::Typist => WorkloadKind::Typing { wpm: crate::defaults::CAPACITY_WPM },
            UserKind::Menu => WorkloadKind::Menu,
            UserKind::Scroller => WorkloadKind::Scroll,
            UserKind::Banner => WorkloadKind::from_name("banner_ticker").expect("a workload"),
            UserKind::Reader => WorkloadKind::Cursor,
        }
    }
}

/// A mix: kinds with weights.
pub type Mix = Vec<(UserKind, u32)>;

/// Parse `typist=8,menu=1,scroller=1`.
pub fn parse_mix(s: &str) -> Result<Mix, latlab_model::ConfigError> {
    let mut mix = Vec::new();
    for part in s.split(',').filter(|p| !p.trim().is_empty()) {
        let (name, w) = part.split_once('=').unwrap_or((part, "1"));
        let kind = UserKind::ALL.into_iter().find(|k| k.name() == name.trim()).ok_or_else(|| {
            format!("unknown user '{}' in the mix: use {}", name.trim(), UserKind::ALL.map(UserKind::name).join(", "))
        })?;
        let w: u32 = w.trim().parse().map_err(|_| format!("'{part}': the weight must be a whole number"))?;
        if w > 0 {
            mix.push((kind, w));
        }
    }
    if mix.is_empty() {
        return Err("the mix is empty".into());
    }
    Ok(mix)
}

/// The mix as `--mix` takes it.
pub fn mix_name(mix: &Mix) -> String {
    mix.iter().map(|(k, w)| format!("{}={w}", k.name())).collect::<Vec<_>>().join(",")
}

/// The kinds of `n` sessions from `mix`: the weighted list repeated, so every prefix keeps the
/// mix as near as whole users allow (the first user is the first kind).
pub fn assign(mix: &Mix, n: usize) -> Vec<UserKind> {
    let total: u32 = mix.iter().map(|m| m.1).sum();
    // Smooth weighted round-robin: each step the kind furthest behind its share goes next.
    let mut credit: Vec<i64> = vec![0; mix.len()];
    (0..n)
        .map(|_| {
            for (c, m) in credit.iter_mut().zip(mix) {
                *c += m.1 as i64;
            }
            let best = (0..mix.len()).max_by_key(|&i| (credit[i], std::cmp::Reverse(i))).unwrap_or(0);
            credit[best] -= total as i64;
            mix[best].0
        })
        .collect()
}

latlab_model::serialize_by_name!(UserKind);
