//! Verdicts on paper-vs-here rows: whether a study's finding holds on this machine, and the
//! stated rule that decided it. Every rule is here, so every row is judged the same way.
//!
//! A row is **reproduced** when the finding holds within the rule's tolerance, **differs**
//! when it does not (the text says which setting or mechanism explains it), and is **not
//! comparable here** when this machine cannot run the study's measurement at all. Two more
//! verdicts mark rows that say nothing about the machine and are never counted as findings:
//! a **self-check** (latlab measures back a value it configured itself: a relay's release
//! period, a shaper's rate, a parser on the seed's own excerpt) and **simulated** (virtual
//! time or a deterministic model that gives the same figure on every machine). Both still
//! carry a pass/fail in their basis: a self-check that fails means latlab is broken.

use serde::{Deserialize, Serialize};

/// One paper-vs-here row: a headline figure of a study beside this run's comparable value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperRow {
    /// Which study (`001` … `004`, `000`), as named in `shared/PAPERS.md`.
    pub seed: String,
    /// The figure or table and quantity, e.g. "Fig. 11 CE 3.0 ISR start max".
    pub figure: String,
    /// The setting the paper measured in (hardware, load).
    pub paper_setting: String,
    /// The paper's value, as printed (with unit).
    pub paper_value: String,
    /// This run's value, formatted with unit.
    pub here_value: String,
    /// What this run measured and why it is comparable (or how it differs).
    pub note: String,
    /// Whether the finding reproduced here, and the rule that said so (`verdict`, `basis`
    /// in JSON; absent from records older than `latlab.run/3`, which load as unjudged).
    #[serde(flatten)]
    pub judgement: Judgement,
}

/// The rows of one study measured in one setting: each row made from its own five parts.
#[derive(Debug, Clone, Copy)]
pub struct StudyRows<'a> {
    /// Which study.
    pub seed: &'a str,
    /// The setting the paper measured in, the same for every row.
    pub setting: &'a str,
}

impl StudyRows<'_> {
    /// One row: the figure, the paper's value, this run's, the note and the judgement.
    pub fn row(&self, figure: &str, paper: &str, here: String, note: &str, judgement: Judgement) -> PaperRow {
        PaperRow {
            seed: self.seed.into(),
            figure: figure.into(),
            paper_setting: self.setting.into(),
            paper_value: paper.into(),
            here_value: here,
            note: note.into(),
            judgement,
        }
    }
}

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
    /// latlab measured back a value it configured: a check of latlab, not of the machine.
    SelfCheck,
    /// Virtual time or a deterministic model: the same figure on every machine.
    Simulated,
}

impl Verdict {
    /// The words the report and the suite summary print.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Differs => "differs",
            Verdict::NotComparable => "not comparable here",
            Verdict::Unjudged => "not judged",
            Verdict::SelfCheck => "self-check",
            Verdict::Simulated => "simulated",
        }
    }

    /// Whether the row measured this machine against the study (reproduced, differs, not
    /// comparable): the only rows the machine tally counts.
    pub fn is_about_machine(self) -> bool {
        matches!(self, Verdict::Reproduced | Verdict::Differs | Verdict::NotComparable)
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
    /// For a self-check or a simulated row, whether its own check passed (a self-check that
    /// fails means latlab is wrong, not the machine); absent for every other verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
    /// A *not comparable* row whose reason is latlab's own design (its workload or method
    /// differs from the study's on purpose), not this machine: counted and worded apart from
    /// the rows this machine could not measure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub by_design: bool,
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
        Judgement { verdict, basis, check_passed: None, by_design: false }
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

    /// The words the report and the suite summary print for this row's verdict ("not
    /// comparable by design" for a row latlab's own design keeps from comparing).
    pub fn label(&self) -> &'static str {
        if self.verdict == Verdict::NotComparable && self.by_design {
            "not comparable by design"
        } else {
            self.verdict.as_str()
        }
    }

    /// Not comparable because of latlab's own design (`why`: what latlab does differently
    /// from the study, on purpose), not because of this machine: never counted among the rows
    /// that measured the machine.
    pub fn not_comparable_by_design(why: &str) -> Self {
        Judgement { by_design: true, ..Self::new(Verdict::NotComparable, format!("by latlab's design: {why}")) }
    }

    /// The row measures back a value latlab configured (`configured`): the check's own
    /// outcome (`check`, judged by any rule above) goes into the basis, with "passes" or
    /// "FAILS", and the verdict says it is not a finding about the machine. A check that could
    /// not run at all stays not comparable.
    pub fn self_check(configured: &str, check: Judgement) -> Self {
        Self::apart(
            Verdict::SelfCheck,
            &format!("self-check of {configured}, not a finding about this machine"),
            ("passes", "FAILS (latlab is broken)"),
            check,
        )
    }

    /// The row comes from virtual time or a deterministic model (`model`), the same on every
    /// machine; `check` says whether the model gives the seed's figure.
    pub fn simulated(model: &str, check: Judgement) -> Self {
        Self::apart(
            Verdict::Simulated,
            &format!("simulated ({model}), the same on every machine"),
            ("the model agrees with the seed", "the model disagrees with the seed"),
            check,
        )
    }

    /// A verdict counted apart from the machine's, keeping `check`'s outcome: `what`, then
    /// the words for a pass or a failure, then the check's own basis.
    fn apart(verdict: Verdict, what: &str, (pass, fail): (&str, &str), check: Judgement) -> Self {
        if check.verdict == Verdict::NotComparable {
            return check;
        }
        let passed = check.verdict == Verdict::Reproduced;
        let outcome = if passed { pass } else { fail };
        Judgement { check_passed: Some(passed), ..Self::new(verdict, format!("{what}: {outcome}; {}", check.basis)) }
    }

    /// Whether a self-check or simulation failed its own check (recorded in the basis).
    pub fn check_failed(&self) -> bool {
        self.check_passed == Some(false)
    }
}

/// Counts of each verdict over some rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Reproduced here.
    pub reproduced: usize,
    /// Measured here and different.
    pub differs: usize,
    /// The study's measurement cannot run here.
    pub not_comparable: usize,
    /// Stored before verdicts existed.
    pub unjudged: usize,
    /// Self-checks of latlab's own settings.
    pub self_check: usize,
    /// Simulations, the same on every machine.
    pub simulated: usize,
    /// Not comparable because of latlab's own design (counted apart from `not_comparable`).
    pub by_design: usize,
}

impl Counts {
    /// Count the verdicts of `rows`.
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a PaperRow>) -> Self {
        let mut c = Counts::default();
        for r in rows {
            match r.judgement.verdict {
                Verdict::Reproduced => c.reproduced += 1,
                Verdict::Differs => c.differs += 1,
                Verdict::NotComparable if r.judgement.by_design => c.by_design += 1,
                Verdict::NotComparable => c.not_comparable += 1,
                Verdict::Unjudged => c.unjudged += 1,
                Verdict::SelfCheck => c.self_check += 1,
                Verdict::Simulated => c.simulated += 1,
            }
        }
        c
    }
    /// Rows that measured this machine against the study.
    pub fn machine(&self) -> usize {
        self.reproduced + self.differs + self.not_comparable
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One line counting the verdicts of `rows`: the rows that measured this machine first, then
/// apart the self-checks and simulations, e.g. "12 paper rows measured this machine: 5
/// reproduced, 4 differ, 3 not comparable here; apart: 2 self-checks, 1 simulated".
pub fn tally<'a>(rows: impl IntoIterator<Item = &'a PaperRow>) -> String {
    let c = Counts::of(rows);
    let m = c.machine();
    let mut line = format!(
        "{} measured this machine: {} reproduced, {}, {} not comparable here",
        plural(m, "paper row", "paper rows"),
        c.reproduced,
        plural(c.differs, "differs", "differ"),
        c.not_comparable
    );
    let mut apart = Vec::new();
    if c.self_check > 0 {
        apart.push(plural(c.self_check, "self-check of latlab's own settings", "self-checks of latlab's own settings"));
    }
    if c.simulated > 0 {
        apart.push(format!("{} simulated (the same on every machine)", c.simulated));
    }
    if c.by_design > 0 {
        apart.push(format!("{} not comparable by latlab's design", c.by_design));
    }
    if c.unjudged > 0 {
        apart.push(format!("{} not judged (stored before verdicts)", c.unjudged));
    }
    if !apart.is_empty() {
        line.push_str(&format!("; not counted: {}", apart.join(", ")));
    }
    line
}

/// The studies by seed number, as `shared/PAPERS.md` names them.
pub fn study_name(seed: &str) -> &'static str {
    match seed {
        "000" => "RDP client pipeline (Network Projector, CE 6.0)",
        "001" => "CE real-time determinism (StrongARM)",
        "002" => "UDP interval timing (Windows Phone 7)",
        "003" => "Terminal Server bandwidth and latency",
        "004" => "Embedded start-up (WES 7)",
        _ => "",
    }
}

/// One line per study: what held on this machine and what did not, by figure, and how many
/// rows were latlab's own checks or simulations (with any that failed named: a failed
/// self-check means latlab, not the machine, is wrong).
pub fn study_lines<'a>(rows: impl IntoIterator<Item = &'a PaperRow>) -> Vec<String> {
    let mut seeds: Vec<(&str, Vec<&PaperRow>)> = Vec::new();
    for r in rows {
        match seeds.iter_mut().find(|(s, _)| *s == r.seed) {
            Some((_, v)) => v.push(r),
            None => seeds.push((r.seed.as_str(), vec![r])),
        }
    }
    seeds.sort_by(|a, b| a.0.cmp(b.0));
    let names = |v: &[&PaperRow], want: Verdict, by_design: bool| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in v.iter().filter(|r| r.judgement.verdict == want && r.judgement.by_design == by_design) {
            // The figure's name without what its value lists ("…: max / min / jitter").
            let name = match r.figure.split_once(": ") {
                Some((head, tail)) if tail.contains(" / ") => head.to_string(),
                _ => r.figure.clone(),
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    };
    seeds
        .into_iter()
        .map(|(seed, v)| {
            let held = names(&v, Verdict::Reproduced, false);
            let not = names(&v, Verdict::Differs, false);
            let nc = names(&v, Verdict::NotComparable, false);
            let design = names(&v, Verdict::NotComparable, true);
            let mut parts = Vec::new();
            parts.push(if held.is_empty() {
                "nothing held here".to_string()
            } else {
                format!("held here: {}", held.join("; "))
            });
            if !not.is_empty() {
                parts.push(format!("did not hold: {}", not.join("; ")));
            }
            if !nc.is_empty() {
                parts.push(format!("could not be measured here: {}", nc.join("; ")));
            }
            if !design.is_empty() {
                parts.push(format!("not comparable by latlab's design: {}", design.join("; ")));
            }
            let c = Counts::of(v.iter().copied());
            if c.self_check + c.simulated > 0 {
                let failed: Vec<&str> =
                    v.iter().filter(|r| r.judgement.check_failed()).map(|r| r.figure.as_str()).collect();
                let mut s = format!("{} self-check(s) and {} simulated row(s) not counted", c.self_check, c.simulated);
                if !failed.is_empty() {
                    s.push_str(&format!(" (failing: {})", failed.join("; ")));
                }
                parts.push(s);
            }
            format!("seed {seed} ({}): {}", study_name(seed), parts.join(" — "))
        })
        .collect()
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
        let row = |j: Judgement| PaperRow {
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
            "3 paper rows measured this machine: 1 reproduced, 1 differs, 1 not comparable here; not counted: 1 not judged (stored before verdicts)"
        );
        assert_eq!(
            tally(&rows[..1]),
            "1 paper row measured this machine: 1 reproduced, 0 differ, 0 not comparable here"
        );
    }

    #[test]
    fn self_checks_and_simulations_are_counted_apart() {
        let row = |seed: &str, fig: &str, j: Judgement| PaperRow {
            seed: seed.into(),
            figure: fig.into(),
            paper_setting: String::new(),
            paper_value: String::new(),
            here_value: String::new(),
            note: String::new(),
            judgement: j,
        };
        let ok = Judgement::within_factor(1.0, 1.0, 1.1, "");
        let bad = Judgement::within_factor(3.0, 1.0, 1.1, "");
        let rows = [
            row("002", "release period", Judgement::self_check("the relay's 1.23 s release", ok.clone())),
            row("002", "burst size", Judgement::self_check("the relay's burst", bad.clone())),
            row("003", "users per link", Judgement::simulated("workload bytes ÷ link", ok.clone())),
            row("001", "Fig. 11 ISR", ok.clone()),
            row("001", "Fig. 11 APP", bad.clone()),
        ];
        let c = Counts::of(&rows);
        assert_eq!((c.machine(), c.self_check, c.simulated), (2, 2, 1));
        assert!(!Verdict::SelfCheck.is_about_machine() && !Verdict::Simulated.is_about_machine());
        let t = tally(&rows);
        assert!(t.starts_with("2 paper rows measured this machine: 1 reproduced, 1 differs"), "{t}");
        assert!(t.contains("2 self-checks") && t.contains("1 simulated"), "{t}");
        // A self-check keeps its own outcome: a failing one is not hidden.
        assert!(rows[0].judgement.basis.contains("passes") && !rows[0].judgement.check_failed());
        assert!(rows[1].judgement.check_failed());
        let lines = study_lines(&rows);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("seed 001") && lines[0].contains("held here: Fig. 11 ISR"), "{}", lines[0]);
        assert!(lines[0].contains("did not hold: Fig. 11 APP"), "{}", lines[0]);
        assert!(lines[1].contains("nothing held here") && lines[1].contains("failing: burst size"), "{}", lines[1]);
        let s = serde_json::to_string(&rows[2].judgement).unwrap();
        assert!(s.contains(r#""verdict":"simulated""#), "{s}");
        let s = serde_json::to_string(&rows[0].judgement).unwrap();
        assert!(s.contains(r#""verdict":"self_check""#), "{s}");
    }

    #[test]
    fn old_rows_load_as_unjudged() {
        let j: Judgement = serde_json::from_str("{}").unwrap();
        assert_eq!(j.verdict, Verdict::Unjudged);
        let s = serde_json::to_string(&Judgement::not_comparable("x")).unwrap();
        assert_eq!(s, r#"{"verdict":"not_comparable","basis":"x"}"#);
    }
}
