//! Test: every option that takes a number or a duration says in its help which values it takes.

/// Every option that takes a number or a duration says in its help which values it takes
/// (a range, a floor or a ceiling): a user should not learn the range from an error.
#[test]
fn every_numeric_option_states_its_range_in_its_help() {
    use std::any::TypeId;
    let numeric = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<f64>(),
    ];
    let mut missing = Vec::new();
    fn walk(c: &clap::Command, path: String, numeric: &[TypeId], missing: &mut Vec<String>) {
        for a in c.get_arguments() {
            if a.is_hide_set() || a.get_long().is_none() {
                continue;
            }
            let t = a.get_value_parser().type_id();
            if !numeric.iter().any(|n| t == *n) {
                continue;
            }
            let help = format!(
                "{} {}",
                a.get_help().map(|h| h.to_string()).unwrap_or_default(),
                a.get_long_help().map(|h| h.to_string()).unwrap_or_default()
            );
            if !states_a_range(&help) {
                missing.push(format!("{path} --{}: {help}", a.get_long().unwrap()));
            }
        }
        for s in c.get_subcommands() {
            walk(s, format!("{path} {}", s.get_name()), numeric, missing);
        }
    }
    let whole = crate::registry::Registry::standard().grammar();
    walk(&whole, "latlab".into(), &numeric, &mut missing);
    missing.sort();
    missing.dedup();
    assert!(missing.is_empty(), "{} options without a range in their help:\n{}", missing.len(), missing.join("\n"));
}

/// Whether an option's help states the values it takes: `[1–100]`, `0 or more`, `at most …`,
/// `above 0`, `from … to …`, or the values themselves (`16 or 24`).
fn states_a_range(help: &str) -> bool {
    let h = help.to_lowercase();
    let listed = h.split(" or ").count() > 1
        && h.split(" or ").skip(1).all(|after| after.starts_with(|c: char| c.is_ascii_digit()));
    listed
        || ["–", "…", " to ", "or more", "at most", "at least", "above", "below", "shorter than", "(> ", "any number"]
            .iter()
            .any(|w| h.contains(w))
}
