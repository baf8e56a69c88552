//! Verdicts on paper-vs-here rows: whether a study's finding holds on this machine, and the
//! stated rule that decided it. Every rule is here, so every row is judged the same way.
//!
//! A row is **reproduced** when the finding holds within the rule's tolerance, **differs**
//! when it does not (the text says which setting or mechanism explains it), and is **not
//! comparable here** when this machine cannot run the study's measurement at all.

use serde::{Deserialize, Serialize};

/// How a study's finding came out on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The finding holds here within the stated tolerance.
    Reproduced,
    /// It does not; the basis says by how much and why.
    Differs,
    /// This machine cannot measure what the study measured.
    NotComparable,
    /// Rows stored before verdicts existed (`latlab.run/2` and older).
    #[default]
    Unjudged,
}

impl Verdict {
    /// The words the report and the suite summary print.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Differs => "differs",
            Verdict::NotComparable => "not comparable here",
            Verdict::Unjudged => "not judged",
        }
    }
}

/// A verdict with the rule and figures that gave it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Judgement {
    /// The verdict.
    #[serde(default)]
    pub verdict: Verdict,
    /// The rule (with its tolerance), how this run came out against it, and for `differs`
    /// the setting or mechanism that explains the difference.
    #[serde(default)]
    pub basis: String,
}

/// `rule; why`, or the rule alone when there is nothing to add (another part of the row
/// already says it).
fn with_why(rule: String, why: &str) -> String {
    if why.is_empty() { rule } else { format!("{rule}; {why}") }
}

/// Ratio printed to two significant-ish places.
fn ratio(r: f64) -> String {
    if r >= 10.0 { format!("{r:.0}") } else { format!("{r:.2}") }
}

impl Judgement {
    fn new(verdict: Verdict, basis: String) -> Self {
        Judgement { verdict, basis }
    }

    /// Reproduced when `here` is within `factor` of `paper`, either way.
    pub fn within_factor(here: f64, paper: f64, factor: f64, why_differs: &str) -> Self {
        if !(here.is_finite() && paper.is_finite()) || paper <= 0.0 || here < 0.0 {
            return Self::new(Verdict::Differs, with_why("no comparable value here".into(), why_differs));
        }
        let r = here / paper;
        let ok = r <= factor && r * factor >= 1.0;
        let rule = format!("here ÷ paper = {} (tolerance: within {factor}× either way)", ratio(r));
        if ok { Self::new(Verdict::Reproduced, rule) } else { Self::new(Verdict::Differs, with_why(rule, why_differs)) }
    }

    /// Reproduced when `here` lies in the paper's range `[lo, hi]` (across the systems it
    /// measured), widened by `factor` on each side.
    pub fn within_range(here: f64, lo: f64, hi: f64, factor: f64, why_differs: &str) -> Self {
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        if !here.is_finite() || lo <= 0.0 {
            return Self::new(Verdict::Differs, with_why("no comparable value here".into(), why_differs));
        }
        let ok = here >= lo / factor && here <= hi * factor;
        let rule = if here < lo {
            format!("here is {}× below the paper's lowest", ratio(lo / here.max(f64::MIN_POSITIVE)))
        } else if here > hi {
            format!("here is {}× above the paper's highest", ratio(here / hi))
        } else {
            "here lies inside the paper's range".to_string()
        };
        let rule = format!("{rule} (tolerance: the paper's range widened {factor}× each way)");
        if ok { Self::new(Verdict::Reproduced, rule) } else { Self::new(Verdict::Differs, with_why(rule, why_differs)) }
    }

    /// A qualitative finding: reproduced when `holds`. `finding` states the finding as the
    /// rule, `observed` what this run saw.
    pub fn finding(holds: bool, finding: &str, observed: &str, why_differs: &str) -> Self {
        if holds {
            Self::new(Verdict::Reproduced, format!("finding: {finding}; here: {observed}"))
        } else {
            Self::new(Verdict::Differs, with_why(format!("finding: {finding}; here: {observed}"), why_differs))
        }
    }

    /// Several judgements of one row: reproduced only if all are, not comparable if any is,
    /// else differs. The bases are joined.
    pub fn all(parts: Vec<Judgement>) -> Self {
        let verdict = if parts.iter().any(|j| j.verdict == Verdict::NotComparable) {
            Verdict::NotComparable
        } else if parts.iter().all(|j| j.verdict == Verdict::Reproduced) {
            Verdict::Reproduced
        } else {
            Verdict::Differs
        };
        Self::new(verdict, parts.into_iter().map(|j| j.basis).collect::<Vec<_>>().join(" · "))
    }

    /// Name the quantity judged, e.g. `"max"`: the basis then reads "max: …".
    pub fn of(mut self, quantity: &str) -> Self {
        self.basis = format!("{quantity}: {}", self.basis);
        self
    }

    /// This machine cannot measure it; `why` says what is missing.
    pub fn not_comparable(why: &str) -> Self {
        Self::new(Verdict::NotComparable, why.to_string())
    }
}

/// One line counting the verdicts of `rows`, e.g. "12 paper rows: 5 reproduced, 4 differ,
/// 3 not comparable here".
pub fn tally<'a>(rows: impl IntoIterator<Item = &'a crate::record::PaperRow>) -> String {
    let mut n = [0usize; 4];
    for r in rows {
        n[r.judgement.verdict as usize] += 1;
    }
    let total: usize = n.iter().sum();
    let mut parts = vec![
        format!("{} reproduced", n[Verdict::Reproduced as usize]),
        format!(
            "{} {}",
            n[Verdict::Differs as usize],
            if n[Verdict::Differs as usize] == 1 { "differs" } else { "differ" }
        ),
        format!("{} not comparable here", n[Verdict::NotComparable as usize]),
    ];
    if n[Verdict::Unjudged as usize] > 0 {
        parts.push(format!("{} not judged (stored before verdicts)", n[Verdict::Unjudged as usize]));
    }
    format!("{total} paper row{}: {}", if total == 1 { "" } else { "s" }, parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_factor_is_symmetric_and_inclusive() {
        assert_eq!(Judgement::within_factor(2.0, 1.0, 2.0, "x").verdict, Verdict::Reproduced);
        assert_eq!(Judgement::within_factor(0.5, 1.0, 2.0, "x").verdict, Verdict::Reproduced);
        assert_eq!(Judgement::within_factor(2.01, 1.0, 2.0, "x").verdict, Verdict::Differs);
        assert_eq!(Judgement::within_factor(0.49, 1.0, 2.0, "x").verdict, Verdict::Differs);
        let d = Judgement::within_factor(3.0, 1.0, 2.0, "slower disk");
        assert!(d.basis.contains("3.00") && d.basis.ends_with("slower disk"), "{}", d.basis);
        // Nothing to compare is never a silent pass.
        assert_eq!(Judgement::within_factor(f64::NAN, 1.0, 2.0, "x").verdict, Verdict::Differs);
        assert_eq!(Judgement::within_factor(1.0, 0.0, 2.0, "x").verdict, Verdict::Differs);
    }

    #[test]
    fn within_range_widens_both_ends() {
        let j = |h| Judgement::within_range(h, 5.0, 12.0, 2.0, "why").verdict;
        assert_eq!(j(2.5), Verdict::Reproduced);
        assert_eq!(j(24.0), Verdict::Reproduced);
        assert_eq!(j(8.0), Verdict::Reproduced);
        assert_eq!(j(2.4), Verdict::Differs);
        assert_eq!(j(24.1), Verdict::Differs);
        // Reversed bounds are the same range.
        assert_eq!(Judgement::within_range(30.0, 12.0, 5.0, 2.0, "w").verdict, Verdict::Differs);
        let b = Judgement::within_range(48.0, 5.0, 12.0, 2.0, "Linux on x86").basis;
        assert!(b.contains("4.00× above") && b.contains("Linux on x86"), "{b}");
    }

    #[test]
    fn findings_and_refusals_say_why() {
        let r = Judgement::finding(true, "bursts", "bursts every 1.2 s", "never shown");
        assert_eq!(r.verdict, Verdict::Reproduced);
        assert!(!r.basis.contains("never shown"));
        let d = Judgement::finding(false, "bursts", "none", "loopback has no radio");
        assert_eq!(d.verdict, Verdict::Differs);
        assert!(d.basis.contains("loopback has no radio"));
        // An empty reason (another part of the row gives it) adds nothing.
        assert_eq!(Judgement::finding(false, "bursts", "none", "").basis, "finding: bursts; here: none");
        let n = Judgement::not_comparable("no boot trace");
        assert_eq!((n.verdict, n.verdict.as_str()), (Verdict::NotComparable, "not comparable here"));
    }

    #[test]
    fn all_needs_every_part() {
        let ok = || Judgement::within_factor(1.0, 1.0, 2.0, "");
        let off = || Judgement::within_factor(5.0, 1.0, 2.0, "why").of("b");
        assert_eq!(Judgement::all(vec![ok(), ok()]).verdict, Verdict::Reproduced);
        let d = Judgement::all(vec![ok(), off()]);
        assert_eq!(d.verdict, Verdict::Differs);
        assert!(d.basis.contains(" · b: here ÷ paper = 5.00"), "{}", d.basis);
        assert_eq!(Judgement::all(vec![off(), Judgement::not_comparable("x")]).verdict, Verdict::NotComparable);
    }

    #[test]
    fn tally_counts_each_verdict() {
        let row = |j: Judgement| crate::record::PaperRow {
            seed: "001".into(),
            figure: String::new(),
            paper_setting: String::new(),
            paper_value: String::new(),
            here_value: String::new(),
            note: String::new(),
            judgement: j,
        };
        let rows = [
            row(Judgement::within_factor(1.0, 1.0, 2.0, "")),
            row(Judgement::within_factor(9.0, 1.0, 2.0, "")),
            row(Judgement::not_comparable("")),
            row(Judgement::default()),
        ];
        assert_eq!(
            tally(&rows),
            "4 paper rows: 1 reproduced, 1 differs, 1 not comparable here, 1 not judged (stored before verdicts)"
        );
        assert_eq!(tally(&rows[..1]), "1 paper row: 1 reproduced, 0 differ, 0 not comparable here");
    }

    #[test]
    fn old_rows_load_as_unjudged() {
        let j: Judgement = serde_json::from_str("{}").unwrap();
        assert_eq!(j.verdict, Verdict::Unjudged);
        let s = serde_json::to_string(&Judgement::not_comparable("x")).unwrap();
        assert_eq!(s, r#"{"verdict":"not_comparable","basis":"x"}"#);
    }
}
