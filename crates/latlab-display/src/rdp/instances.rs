//! Seed 003 §5 on the local server's own applications: "Typical applications, even with code
//! page sharing, consume at least 1MB for each instance." The server latlab starts runs two
//! xterms per screen, which share their code; each one's private pages are what one more
//! instance costs.

use latlab_model::numfmt::sig;
use latlab_model::record::{PaperRow, RunRecord};
use latlab_model::verdict::Judgement;
use latlab_sys::procmem::ProcMemory;

/// The application measured: the terminal both local servers run.
const APP: &str = "xterm";
/// The seed's floor, KiB ("at least 1MB").
const AT_LEAST_KIB: u64 = 1024;

/// The memory of every instance of the application (xterm) among `pids` (the server's processes).
pub fn measure(pids: &[u32]) -> Vec<ProcMemory> {
    pids.iter()
        .filter(|&&p| latlab_sys::procmem::comm(p).is_some_and(|c| c == APP))
        .filter_map(|&p| latlab_sys::procmem::memory(p))
        .collect()
}

/// The application's version as it prints it (`XTerm(379)`), if it does.
fn version() -> Option<String> {
    let out = std::process::Command::new(APP).arg("-version").output().ok()?;
    let v = String::from_utf8(out.stdout).ok()?;
    Some(v.trim().to_string()).filter(|v| !v.is_empty())
}

/// Metrics and the row, from the instances measured; `server` names the server.
pub fn rows(rec: &mut RunRecord, server: &str, instances: &[ProcMemory]) {
    let row = |here: String, note: String, judgement: Judgement| PaperRow {
        seed: "003".into(),
        figure: "§5 memory for each instance of a typical application".into(),
        paper_setting: crate::paper::SETTING_003.into(),
        paper_value: "\"Typical applications, even with code page sharing, consume at least 1MB for each instance\""
            .into(),
        here_value: here,
        note,
        judgement,
    };
    if instances.len() < 2 {
        rec.paper.push(row(
            format!("{} instance(s) of {APP} found on {server}", instances.len()),
            "the local server's terminals, read from /proc/PID/smaps_rollup".into(),
            Judgement::not_comparable(&format!(
                "fewer than two instances of {APP} were readable, so none shares its code with another"
            )),
        ));
        return;
    }
    let least = instances.iter().map(|m| m.private_kib).min().unwrap_or(0);
    let most = instances.iter().map(|m| m.private_kib).max().unwrap_or(0);
    let pss = instances.iter().map(|m| m.pss_kib).sum::<u64>() as f64 / instances.len() as f64;
    rec.metric("rdp.app.instances", instances.len() as u64, "count");
    rec.metric("rdp.app.private_kib.min", least, "KiB");
    rec.metric("rdp.app.private_kib.max", most, "KiB");
    rec.metric("rdp.app.pss_kib.mean", pss, "KiB");
    let name = version().unwrap_or_else(|| APP.into());
    rec.config("app_version", &name);
    let mb = |kib: u64| sig(kib as f64 / 1024.0);
    rec.paper.push(row(
        format!(
            "{name}: {}–{} MiB private per instance ({} MiB PSS on average), {} instances on {server}",
            mb(least),
            mb(most),
            sig(pss / 1024.0),
            instances.len()
        ),
        "the local server's terminals after the run's typing, each one's private pages (clean and dirty: what no other process maps) with the instances sharing their code; see rdp.app.private_kib.min".into(),
        Judgement::finding(
            least >= AT_LEAST_KIB,
            "each instance costs at least 1 MB even with its code shared (held to every instance's private pages ≥ 1 MiB)",
            &format!("the least {} MiB", mb(least)),
            "an instance here keeps less than 1 MiB of its own",
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use latlab_model::verdict::Verdict;

    fn judged(instances: &[ProcMemory]) -> PaperRow {
        let mut rec = latlab_sys::record::begin("display");
        rows(&mut rec, "a server", instances);
        rec.paper.pop().unwrap()
    }

    #[test]
    fn the_least_private_instance_decides_and_one_instance_is_not_enough() {
        let m = |p| ProcMemory { pss_kib: 3000, private_kib: p };
        assert_eq!(judged(&[m(2048), m(1500)]).judgement.verdict, Verdict::Reproduced);
        assert_eq!(judged(&[m(2048), m(900)]).judgement.verdict, Verdict::Differs);
        assert_eq!(judged(&[m(2048)]).judgement.verdict, Verdict::NotComparable);
    }

    #[test]
    fn this_machine_s_own_processes_are_found_by_name() {
        // Nothing here is an xterm: none found, no panic.
        assert!(measure(&[std::process::id()]).is_empty());
    }
}
