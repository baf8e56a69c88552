//! `latlab clean`: what killed latlab runs left behind, found by their latlab names and
//! removed, each said on stdout.

use crate::cli::CleanArgs;
use latlab_sys::leftovers::{self, Places};

pub fn run(a: CleanArgs) -> anyhow::Result<i32> {
    let found = leftovers::find(&Places::here());
    if found.is_empty() {
        crate::runner::out("nothing left behind by latlab\n")?;
        return Ok(crate::exit::OK);
    }
    let mut text = String::new();
    let mut failed = 0;
    if a.dry_run {
        for l in &found {
            text += &format!("would remove {}\n", l.describe());
        }
    } else {
        for (what, r) in leftovers::remove_all(&found) {
            match r {
                Ok(()) => text += &format!("removed {what}\n"),
                Err(e) => {
                    failed += 1;
                    text += &format!("could not remove {what}: {e}\n");
                }
            }
        }
    }
    crate::runner::out(&text)?;
    Ok(if failed > 0 { crate::exit::ERROR } else { crate::exit::OK })
}
