//! A program latlab started and may have to explain: its error output kept, so that one that
//! ends before it is ready says why; the whole tree below it ended when dropped.

use std::process::{Child, Command};

/// A program latlab started, with everything below it: the tree is ended when dropped (a
/// terminal's shell too), youngest last. Its error output is kept (in an unnamed temporary
/// file) so that a program that fails to start can say why.
pub struct Started {
    child: Child,
    prog: String,
    stderr: std::fs::File,
}

impl Started {
    /// Start `cmd` (program `prog`), marked as this latlab's (its own process group: see
    /// `latlab_sys::owner::mark`); a program not on the PATH says so.
    pub(crate) fn spawn(cmd: &mut Command, prog: &str) -> Result<Self, crate::ScreenError> {
        latlab_sys::owner::mark(cmd);
        let stderr = tempfile::tempfile()
            .map_err(|e| crate::ScreenError::start(format!("a temporary file for {prog}'s errors"), e))?;
        let to = stderr
            .try_clone()
            .map_err(|e| crate::ScreenError::start(format!("a temporary file for {prog}'s errors"), e))?;
        let child =
            cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(to).spawn().map_err(
                |e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        crate::ScreenError::start(format!("starting {prog} (is {prog} installed and on the PATH?)"), e)
                    } else {
                        crate::ScreenError::start(format!("starting {prog}"), e)
                    }
                },
            )?;
        Ok(Self { child, prog: prog.to_string(), stderr })
    }

    /// Its exit status, if it has ended.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// "PROG exited (STATUS) WHEN", with the last lines it wrote to its error output.
    pub fn exit_error(&self, status: std::process::ExitStatus, when: &str) -> crate::ScreenError {
        let mut said = String::new();
        let mut f = &self.stderr;
        let _ = std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(0));
        let _ = std::io::Read::read_to_string(&mut f, &mut said);
        let tail = last_lines(&said, crate::defaults::TYPE_STDERR_TAIL_LINES);
        crate::ScreenError::not_started(if tail.is_empty() {
            format!("{} exited ({status}) {when}, saying nothing on its error output", self.prog)
        } else {
            format!("{} exited ({status}) {when}: {tail}", self.prog)
        })
    }

    /// Its process and every process below it (what `mem` pages out).
    pub fn pids(&self) -> Vec<u32> {
        latlab_sys::pageout::with_descendants(self.child.id())
    }
}

/// The last `n` non-empty lines of `text`, joined with " | ".
pub(crate) fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join(" | ")
}

impl Drop for Started {
    fn drop(&mut self) {
        for p in self.pids().into_iter().rev() {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(p as i32), nix::sys::signal::Signal::SIGTERM);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
