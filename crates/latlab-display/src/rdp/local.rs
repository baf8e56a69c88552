//! A real RDP server on this machine, started and stopped by latlab: an Xvfb display running
//! two xterms (a shell to type into at the top, `less` on a long document to page through
//! below), shared by FreeRDP's shadow server (Debian's `freerdp2-shadow-x11`) on a loopback
//! port, TLS without authentication. What the suite and the tests measure when the packages
//! are installed; dropping it kills all three, on failure too.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The programs a local shadow server needs, and the Debian packages that hold them.
pub const NEEDS: [(&str, &str); 3] =
    [("Xvfb", "xvfb"), ("xterm", "xterm"), ("freerdp-shadow-cli", "freerdp2-shadow-x11")];

/// The screen of the local server: the seed's 1024×768 (seed 003 used 640×480 and 800×600
/// too; 1024×768 is the size `display` uses elsewhere).
pub const SCREEN: (u16, u16) = (1024, 768);

/// Whether `prog` is on the PATH.
pub fn on_path(prog: &str) -> bool {
    std::env::var_os("PATH").map(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file())).unwrap_or(false)
}

/// What is missing to start a local server, as advice naming the packages; `None` if nothing.
pub fn missing() -> Option<String> {
    let lack: Vec<_> = NEEDS.iter().filter(|(p, _)| !on_path(p)).collect();
    (!lack.is_empty()).then(|| {
        format!(
            "no local RDP server: {} not installed (apt-get install {})",
            lack.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", "),
            lack.iter().map(|(_, k)| *k).collect::<Vec<_>>().join(" ")
        )
    })
}

/// Where the pointer goes to give the shell keyboard focus (with no window manager, X gives
/// the keyboard to the window under the pointer).
pub const SHELL_AT: (u16, u16) = (300, 100);
/// Where the pointer goes to give the document (`less`) keyboard focus.
pub const DOCUMENT_AT: (u16, u16) = (300, 600);

/// A running shadow server over its own Xvfb display.
pub struct LocalShadow {
    /// The loopback port it listens on.
    pub port: u16,
    /// The X display number.
    pub display: u32,
    children: Vec<Child>,
    document: std::path::PathBuf,
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn free_display() -> Option<u32> {
    (40..400).find(|n| {
        !std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            && !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
    })
}

fn wait_for(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) -> Result<(), String> {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > timeout {
            return Err(format!("{what} did not start within {} s", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

impl LocalShadow {
    /// Start Xvfb, an xterm on it and the shadow server; returns once the port accepts.
    pub fn start() -> Result<Self, String> {
        if let Some(m) = missing() {
            return Err(m);
        }
        let display = free_display().ok_or("no free X display number in 40..400")?;
        let port = free_port().map_err(|e| format!("no free port: {e}"))?;
        let document = std::env::temp_dir().join(format!("latlab-rdp-document-{}-{display}.txt", std::process::id()));
        let text: String = (1..=20_000)
            .map(|i| format!("{i:6}  the quick brown fox jumps over the lazy dog {}\n", i * 7919 % 10007))
            .collect();
        std::fs::write(&document, text).map_err(|e| format!("{}: {e}", document.display()))?;
        let mut me = Self { port, display, children: Vec::new(), document };
        let d = format!(":{display}");
        let spawn = |cmd: &mut Command, name: &str| {
            cmd.stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("{name}: {e}"))
        };
        let screen = format!("{}x{}x24", SCREEN.0, SCREEN.1);
        me.children.push(spawn(Command::new("Xvfb").args([&d, "-screen", "0", &screen, "-nolisten", "tcp"]), "Xvfb")?);
        let sock = format!("/tmp/.X11-unix/X{display}");
        wait_for("Xvfb", Duration::from_secs(10), || std::path::Path::new(&sock).exists())?;
        // Plain terminals: a fixed font, no blinking, no scroll bar; a shell at the top (under
        // the pointer where X starts it, the middle of the screen, so a client that moves no
        // pointer types into it) and a long document in `less` below.
        me.children.push(spawn(
            Command::new("xterm").env("DISPLAY", &d).args(["-geometry", "100x32+0+0", "-fn", "fixed", "+sb"]),
            "xterm",
        )?);
        let doc = me.document.display().to_string();
        me.children.push(spawn(
            Command::new("xterm").env("DISPLAY", &d).args([
                "-geometry",
                "100x24+0+400",
                "-fn",
                "fixed",
                "+sb",
                "-e",
                "less",
                "-S",
                &doc,
            ]),
            "xterm",
        )?);
        me.children.push(spawn(
            Command::new("freerdp-shadow-cli").env("DISPLAY", &d).args([
                &format!("/port:{port}"),
                "/bind-address:127.0.0.1",
                "-auth",
                "/sec:tls",
            ]),
            "freerdp-shadow-cli",
        )?);
        wait_for("freerdp-shadow-cli", Duration::from_secs(15), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        })?;
        // xterm maps its window after the server starts; give it time to draw its prompt.
        std::thread::sleep(Duration::from_millis(500));
        Ok(me)
    }

    /// The target string (`127.0.0.1:PORT`).
    pub fn target(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's own name and version, as its package gives it.
    pub fn product() -> String {
        let v = Command::new("freerdp-shadow-cli")
            .arg("/version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().find(|l| l.contains("version")).map(|l| l.trim().to_owned()));
        v.unwrap_or_else(|| "FreeRDP shadow server".into())
    }
}

impl Drop for LocalShadow {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_file(&self.document);
        let _ = std::fs::remove_file(format!("/tmp/.X{}-lock", self.display));
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{}", self.display));
    }
}
