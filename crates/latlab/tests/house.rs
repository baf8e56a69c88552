//! `scripts/check-house.sh --source`: the house's source rules pass on this tree and fail on a
//! copy of it with one break planted: a circle of files, an experiment crate depending on
//! another, a module missing from its crate's file map, an issue number in a comment, a long
//! file without a reason.

use latlab_model::testing::skip;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The files the source rules read, copied into a fresh directory.
fn copy_of_the_house() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = repo();
    for f in ["Cargo.toml", "scripts/house.py", "scripts/house-exceptions.txt", "scripts/check-house.sh"] {
        let to = dir.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(f), to).unwrap();
    }
    copy_tree(&from.join("crates"), &dir.path().join("crates"));
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().unwrap().is_dir() {
            if name != "target" && name != "data" {
                copy_tree(&src, &dst);
            }
        } else if src.extension().is_some_and(|x| x == "rs") || name == "Cargo.toml" {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// The script on `tree`: its exit code and what it said.
fn check(tree: &Path) -> Option<(i32, String)> {
    let has_python = Command::new("python3")
        .args(["-c", "import sys, tomllib; sys.exit(sys.version_info < (3, 11))"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_python {
        skip("python3 3.11 or later (tomllib) is not installed: scripts/house.py needs it");
        return None;
    }
    let out =
        Command::new("bash").arg(repo().join("scripts/check-house.sh")).arg("--source").arg(tree).output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Some((out.status.code().unwrap_or(-1), said))
}

fn append(path: &Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

/// Put `text` in `path` after its `//!` header, above any test module (which the rules leave
/// out).
fn plant(path: &Path, text: &str) {
    let s = std::fs::read_to_string(path).unwrap();
    let at = s.find("\n\n").map_or(0, |i| i + 2);
    std::fs::write(path, format!("{}{text}\n{}", &s[..at], &s[at..])).unwrap();
}

#[test]
fn this_house_passes() {
    let Some((code, said)) = check(&repo()) else { return };
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("no circle of files"), "{said}");
}

#[test]
fn a_planted_circle_of_files_fails() {
    let h = copy_of_the_house();
    let Some((code, _)) = check(h.path()) else { return };
    assert_eq!(code, 0, "the copy passes before anything is planted");
    // fb.rs takes pixels.rs's memory; pixels.rs now takes fb.rs's framebuffer back.
    plant(
        &h.path().join("crates/latlab-desktop/src/pixels.rs"),
        "#[allow(unused_imports)]\nuse crate::fb::Framebuffer;",
    );
    let (code, said) = check(h.path()).unwrap();
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("circle: latlab-desktop: ")
            && said.contains("latlab-desktop/src/fb.rs")
            && said.contains("latlab-desktop/src/pixels.rs"),
        "{said}"
    );
}

#[test]
fn a_planted_experiment_to_experiment_dependency_fails() {
    let h = copy_of_the_house();
    let toml = h.path().join("crates/latlab-stall/Cargo.toml");
    let s = std::fs::read_to_string(&toml).unwrap().replacen(
        "[dependencies]\n",
        "[dependencies]\nlatlab-rt = { path = \"../latlab-rt\" }\n",
        1,
    );
    std::fs::write(&toml, s).unwrap();
    let Some((code, said)) = check(h.path()) else { return };
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("experiment: latlab-stall (dependencies) depends on the experiment crate latlab-rt"),
        "{said}"
    );
}

#[test]
fn a_module_missing_from_its_crate_s_file_map_fails() {
    let h = copy_of_the_house();
    let src = h.path().join("crates/latlab-udp/src");
    std::fs::write(src.join("extra.rs"), "//! Something new.\n").unwrap();
    plant(&src.join("lib.rs"), "pub mod extra;");
    let Some((code, said)) = check(h.path()) else { return };
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains(
            "file map: crates/latlab-udp/src/lib.rs: module crates/latlab-udp/src/extra.rs is not in its file map"
        ),
        "{said}"
    );
}

#[test]
fn an_issue_number_in_a_comment_and_a_long_file_without_a_reason_fail() {
    let h = copy_of_the_house();
    let f = h.path().join("crates/latlab-udp/src/figures.rs");
    append(&f, &format!("\n// As {} #12 asked.\n", "issue"));
    append(&f, &"//\n".repeat(700));
    let Some((code, said)) = check(h.path()) else { return };
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("issue number: crates/latlab-udp/src/figures.rs:"), "{said}");
    assert!(said.contains("long: crates/latlab-udp/src/figures.rs:"), "{said}");
}

#[test]
fn a_string_error_in_a_library_crate_fails() {
    let h = copy_of_the_house();
    let f = h.path().join("crates/latlab-udp/src/figures.rs");
    plant(&f, "pub fn parse_it(s: &str) -> Result<u8,\n    String> { s.parse().map_err(|_| s.to_string()) }");
    let Some((code, said)) = check(h.path()) else { return };
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("typed errors: crates/latlab-udp/src/figures.rs:"), "{said}");
}
