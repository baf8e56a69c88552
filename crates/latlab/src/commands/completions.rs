//! `latlab completions SHELL` and `latlab man`: generated from the clap grammar.

use crate::cli::{CompletionsArgs, ManArgs};
use crate::registry::Registry;
use anyhow::Context;

pub fn completions(registry: &Registry, a: CompletionsArgs) -> anyhow::Result<i32> {
    let mut cmd = registry.grammar();
    let mut text = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "latlab", &mut text);
    crate::runner::out(&String::from_utf8_lossy(&text))?;
    Ok(crate::exit::OK)
}

pub fn man(registry: &Registry, a: ManArgs) -> anyhow::Result<i32> {
    std::fs::create_dir_all(&a.output).with_context(|| format!("cannot create '{}'", a.output.display()))?;
    let cmd = registry.grammar();
    clap_mangen::generate_to(cmd, &a.output).with_context(|| format!("cannot write into '{}'", a.output.display()))?;
    let pages = std::fs::read_dir(&a.output)?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".1"))
        .count();
    eprintln!(
        "wrote {pages} man pages to {} (read one with `man -l {}/latlab.1`)",
        a.output.display(),
        a.output.display()
    );
    Ok(crate::exit::OK)
}
