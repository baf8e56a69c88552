//! A real RDP server on this machine, started and stopped by latlab: an Xvfb display running
//! two xterms (a shell to type into at the top, `less` on a long document to page through
//! below), shared by FreeRDP's shadow server (Debian's `freerdp2-shadow-x11`) on a loopback
//! port, TLS without authentication. What the suite and the tests measure when the packages
//! are installed; dropping it kills all three, on failure too.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod busy;
pub use busy::Busy;

/// A local account latlab made for a run: its user name and password (never printed).
#[derive(Clone, PartialEq, Eq)]
pub struct Account {
    /// User name.
    pub user: String,
    /// Password.
    pub password: String,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Account {{ user: {:?}, password: <hidden> }}", self.user)
    }
}

/// The programs a local shadow server needs, and the Debian packages that hold them. `less`
/// shows the document the typist pages through; a minimal Debian lacks it, and without it the
/// lower xterm closes at once and no page operation is measured.
pub const NEEDS: [(&str, &str); 4] =
    [("Xvfb", "xvfb"), ("xterm", "xterm"), ("less", "less"), ("freerdp-shadow-cli", "freerdp2-shadow-x11")];

/// The screen of the local server: the seed's 1024×768 (seed 003 used 640×480 and 800×600
/// too; 1024×768 is the size `display` uses elsewhere).
pub const SCREEN: (u16, u16) = (1024, 768);

/// Whether `prog` is on the PATH.
pub fn on_path(prog: &str) -> bool {
    which(prog).is_some()
}

/// Where `prog` is: itself when it names a path, else the first file of that name on the PATH.
pub fn which(prog: &str) -> Option<std::path::PathBuf> {
    if prog.contains('/') {
        return std::path::Path::new(prog).is_file().then(|| prog.into());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(prog)).find(|p| p.is_file())
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
/// The shell's window on the screen latlab's servers show, x, y, width, height: its 100
/// columns of the 6-pixel font and the rows above the document's window (at y = 400).
pub const SHELL_AREA: (usize, usize, usize, usize) = (0, 0, 610, 396);
/// Where the pointer goes to give the document (`less`) keyboard focus.
pub const DOCUMENT_AT: (u16, u16) = (300, 600);

/// A running shadow server over its own Xvfb display.
pub struct LocalShadow {
    /// The loopback port it listens on.
    pub port: u16,
    /// The X display number.
    pub display: u32,
    children: Vec<Child>,
    /// The shadow server, its error output kept to say why it ended.
    server: Option<crate::started::Started>,
    document: std::path::PathBuf,
    /// The server's configuration directory (its certificate): latlab's own, so the server
    /// starts whoever runs latlab (an unprivileged user's `$HOME/.config` may not be writable).
    config: std::path::PathBuf,
}

/// The processes latlab started and everything below them.
fn tree(children: &[Child]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for c in children {
        for p in latlab_sys::pageout::with_descendants(c.id()) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Start `cmd` with no terminal, its output dropped, marked as this latlab's (its own process
/// group: see `latlab_sys::owner::mark`).
pub(crate) fn spawn(cmd: &mut Command, name: &str) -> Result<Child, crate::ScreenError> {
    latlab_sys::owner::mark(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| crate::ScreenError::start(name.to_string(), e))
}

/// The long document `less` pages through: 20,000 numbered lines.
fn document_text() -> String {
    (1..=20_000).map(|i| format!("{i:6}  the quick brown fox jumps over the lazy dog {}\n", i * 7919 % 10007)).collect()
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

pub(crate) fn free_display() -> Option<u32> {
    (40..400).find(|n| {
        !std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            && !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
    })
}

pub(crate) fn wait_for(
    what: &str,
    timeout: Duration,
    mut ready: impl FnMut() -> bool,
) -> Result<(), crate::ScreenError> {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > timeout {
            return Err(crate::ScreenError::Screen(format!("{what} did not start within {} s", timeout.as_secs())));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

impl LocalShadow {
    /// Start Xvfb, an xterm on it and the shadow server (TLS, no authentication); returns once
    /// the port accepts.
    pub fn start() -> Result<Self, crate::ScreenError> {
        Self::start_with(None)
    }

    /// [`LocalShadow::start`], requiring NLA against the NTLM accounts of `sam_file`
    /// (`USER:DOMAIN:LMHASH:NTHASH:::` lines) when given.
    pub fn start_with(sam_file: Option<&std::path::Path>) -> Result<Self, crate::ScreenError> {
        if let Some(m) = missing() {
            return Err(crate::ScreenError::not_started(m));
        }
        let display =
            free_display().ok_or_else(|| crate::ScreenError::Screen("no free X display number in 40..400".into()))?;
        let port = free_port().map_err(|e| crate::ScreenError::start("no free port", e))?;
        let document = std::env::temp_dir().join(format!("latlab-rdp-document-{}-{display}.txt", std::process::id()));
        std::fs::write(&document, document_text())
            .map_err(|e| crate::ScreenError::start(format!("{}", document.display()), e))?;
        let config = std::env::temp_dir().join(format!("{}-{display}", latlab_sys::owner::name("rdp-config")));
        std::fs::create_dir_all(&config).map_err(|e| crate::ScreenError::start(format!("{}", config.display()), e))?;
        let mut me = Self { port, display, children: Vec::new(), server: None, document, config };
        let d = format!(":{display}");
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
        let mut args = vec![format!("/port:{port}"), "/bind-address:127.0.0.1".into()];
        match sam_file {
            None => args.extend(["-auth".into(), "/sec:tls".into()]),
            Some(sam) => args.extend(["+auth".into(), "/sec:nla".into(), format!("/sam-file:{}", sam.display())]),
        }
        let server = me.server.insert(crate::started::Started::spawn(
            Command::new("freerdp-shadow-cli").env("DISPLAY", &d).env("XDG_CONFIG_HOME", &me.config).args(&args),
            "freerdp-shadow-cli",
        )?);
        // Until it listens, or says why it will not.
        let mut ended = None;
        wait_for("freerdp-shadow-cli", Duration::from_secs(15), || {
            ended = server.exited();
            ended.is_some() || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        })?;
        if let Some(st) = ended {
            return Err(server.exit_error(st, "before it listened"));
        }
        // Each xterm draws once the program in it runs: wait for its shell (or less), then a
        // little for the prompt.
        for c in &me.children[1..3] {
            let pid = c.id();
            wait_for("xterm's shell", Duration::from_secs(15), || {
                std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).is_ok_and(|k| !k.trim().is_empty())
            })?;
        }
        std::thread::sleep(Duration::from_millis(300));
        Ok(me)
    }

    /// The target string (`127.0.0.1:PORT`).
    pub fn target(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The server's own certificate (PEM), which it made at its start in latlab's directory:
    /// the client pins it, so the run needs no known-hosts file.
    pub fn certificate(&self) -> std::path::PathBuf {
        self.config.join("freerdp").join("shadow").join("shadow.crt")
    }

    /// Every process of the server: Xvfb, the shadow server, the xterms and their programs.
    pub fn pids(&self) -> Vec<u32> {
        let mut v = tree(&self.children);
        v.extend(self.server.as_ref().map(crate::started::Started::pids).unwrap_or_default());
        v
    }

    /// The server's own name and version, as it prints them (after its log prefix).
    pub fn product() -> String {
        let v = Command::new("freerdp-shadow-cli")
            .arg("/version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| {
                s.lines().find(|l| l.contains("version")).map(|l| l.rsplit(" - ").next().unwrap_or(l).trim().to_owned())
            });
        v.unwrap_or_else(|| "FreeRDP shadow server".into())
    }
}

impl Drop for LocalShadow {
    fn drop(&mut self) {
        drop(self.server.take());
        let _ = std::fs::remove_dir_all(&self.config);
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_file(&self.document);
        let _ = std::fs::remove_file(format!("/tmp/.X{}-lock", self.display));
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{}", self.display));
    }
}

/// What a local xrdp needs, and the Debian packages that hold it (`less`: as in [`NEEDS`]; the
/// session waits for it).
pub const XRDP_NEEDS: [(&str, &str); 5] =
    [("xrdp", "xrdp"), ("xrdp-sesman", "xrdp"), ("Xorg", "xserver-xorg-core"), ("xterm", "xterm"), ("less", "less")];
/// The module xrdp's Xorg sessions load (Debian's `xorgxrdp`).
pub const XORGXRDP_MODULE: &str = "/usr/lib/xorg/modules/libxorgxrdp.so";
/// The port xrdp finds its session manager on (sesman.ini's ListenPort; xrdp reads it there).
pub const SESMAN_PORT: u16 = 3350;

/// What is missing to start a local xrdp, as advice; `None` if nothing.
pub fn xrdp_missing() -> Option<String> {
    let mut lack: Vec<&str> = XRDP_NEEDS.iter().filter(|(p, _)| !on_path(p)).map(|(_, k)| *k).collect();
    if !std::path::Path::new(XORGXRDP_MODULE).exists() {
        lack.push("xorgxrdp");
    }
    lack.dedup();
    if !lack.is_empty() {
        return Some(format!("no local xrdp: apt-get install {}", lack.join(" ")));
    }
    if !latlab_sys::platform::is_root() {
        return Some(
            "a local xrdp needs root: latlab adds a local account for its session and runs xrdp-sesman".into(),
        );
    }
    if std::net::TcpStream::connect(("127.0.0.1", SESMAN_PORT)).is_ok()
        || std::net::TcpStream::connect(("::1", SESMAN_PORT)).is_ok()
    {
        return Some(format!(
            "an xrdp-sesman already listens on port {SESMAN_PORT}: latlab starts its own; stop that one, or measure \
             the running xrdp with --rdp HOST[:PORT]"
        ));
    }
    None
}

/// The runtime directories xrdp's processes meet in, as its init script makes them (Debian's
/// `/usr/share/xrdp/socksetup`, run where present): `/run/xrdp` (root:xrdp, 2775) and its
/// `sockdir` (3777), where a session's Xorg (as the session's user) puts the socket xrdp (as
/// `xrdp`) connects to. Made by root alone, the session connects and never draws.
fn runtime_dirs() -> Result<(), crate::ScreenError> {
    const SOCKSETUP: &str = "/usr/share/xrdp/socksetup";
    if std::path::Path::new(SOCKSETUP).exists() {
        return run(Command::new("sh").arg(SOCKSETUP), "xrdp's socksetup");
    }
    use std::os::unix::fs::PermissionsExt;
    let group = nix::unistd::Group::from_name("xrdp").ok().flatten().map(|g| g.gid);
    for (dir, mode) in [("/run/xrdp", 0o2775), ("/run/xrdp/sockdir", 0o3777)] {
        std::fs::create_dir_all(dir).map_err(|e| crate::ScreenError::start(dir.to_string(), e))?;
        if let Some(g) = group {
            nix::unistd::chown(dir, None, Some(g)).map_err(|e| crate::ScreenError::start(dir.to_string(), e))?;
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
            .map_err(|e| crate::ScreenError::start(dir.to_string(), e))?;
    }
    Ok(())
}

/// xrdp on this machine, started and stopped by latlab: local accounts made for the run (each
/// `~/.xsession` runs the same two xterms as [`LocalShadow`]; one at the start, more with
/// [`LocalXrdp::add_account`], one per concurrent session), `xrdp-sesman` and `xrdp` on a
/// loopback port. Dropping it stops both, kills the accounts' sessions (Xorg, xterms) and
/// removes the accounts.
pub struct LocalXrdp {
    /// The port xrdp listens on.
    pub port: u16,
    /// The first account made for the run.
    pub user: String,
    /// Every account made for the run, the first first: (name, password).
    accounts: Vec<(String, String)>,
    children: Vec<Child>,
    locks_before: Vec<std::path::PathBuf>,
}

fn x_locks() -> Vec<std::path::PathBuf> {
    std::fs::read_dir("/tmp")
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(".X") && n.ends_with("-lock"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn run(cmd: &mut Command, what: &str) -> Result<(), crate::ScreenError> {
    let out = cmd.output().map_err(|e| crate::ScreenError::start(what.to_string(), e))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(crate::ScreenError::Screen(format!("{what}: {}", String::from_utf8_lossy(&out.stderr).trim())))
    }
}

impl LocalXrdp {
    /// Make the account, start sesman and xrdp; returns once xrdp's port accepts.
    pub fn start() -> Result<Self, crate::ScreenError> {
        if let Some(m) = xrdp_missing() {
            return Err(crate::ScreenError::not_started(m));
        }
        let port = free_port().map_err(|e| crate::ScreenError::start("no free port", e))?;
        let user = format!("latlabrdp{}", std::process::id());
        let mut me = Self { port, user, accounts: Vec::new(), children: Vec::new(), locks_before: x_locks() };
        me.add_account()?;
        runtime_dirs()?;
        me.children.push(spawn(Command::new("xrdp-sesman").arg("--nodaemon"), "xrdp-sesman")?);
        wait_for("xrdp-sesman", Duration::from_secs(10), || {
            std::net::TcpStream::connect(("::1", SESMAN_PORT)).is_ok()
                || std::net::TcpStream::connect(("127.0.0.1", SESMAN_PORT)).is_ok()
        })?;
        me.children.push(spawn(Command::new("xrdp").args(["--nodaemon", "--port", &port.to_string()]), "xrdp")?);
        wait_for("xrdp", Duration::from_secs(10), || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok())?;
        Ok(me)
    }

    /// Make one more account (its home, document and `~/.xsession`), removed when this is
    /// dropped; returns its credentials (never stored in a record).
    pub fn add_account(&mut self) -> Result<Account, crate::ScreenError> {
        let user = match self.accounts.len() {
            0 => self.user.clone(),
            n => format!("{}x{n}", self.user),
        };
        let mut raw = [0u8; 12];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut raw))
            .map_err(|e| crate::ScreenError::start("/dev/urandom".to_string(), e))?;
        let password: String = raw.iter().map(|b| format!("{b:02x}")).collect::<String>() + "-Aa1";
        run(Command::new("useradd").args(["-m", "-s", "/bin/sh", &user]), "useradd")?;
        // Kept before anything else can fail, so the account is removed whatever happens next.
        self.accounts.push((user.clone(), password.clone()));
        let mut chpasswd = Command::new("chpasswd")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| crate::ScreenError::start("chpasswd".to_string(), e))?;
        std::io::Write::write_all(chpasswd.stdin.as_mut().expect("piped"), format!("{user}:{password}\n").as_bytes())
            .map_err(|e| crate::ScreenError::start("chpasswd".to_string(), e))?;
        let ok = chpasswd.wait_with_output().map_err(|e| crate::ScreenError::start("chpasswd".to_string(), e))?;
        if !ok.status.success() {
            return Err(crate::ScreenError::Screen(format!(
                "chpasswd: {}",
                String::from_utf8_lossy(&ok.stderr).trim()
            )));
        }
        let home = std::path::PathBuf::from(format!("/home/{user}"));
        let doc = home.join("document.txt");
        std::fs::write(&doc, document_text())
            .map_err(|e| crate::ScreenError::start(format!("{}", doc.display()), e))?;
        let session = format!(
            "#!/bin/sh\nxterm -geometry 100x24+0+440 -fn fixed +sb -e less -S {} &\nexec xterm -geometry 100x32+0+0 -fn fixed +sb\n",
            doc.display()
        );
        let xs = home.join(".xsession");
        std::fs::write(&xs, session).map_err(|e| crate::ScreenError::start(format!("{}", xs.display()), e))?;
        run(Command::new("chmod").args(["755", &xs.display().to_string()]), "chmod")?;
        run(Command::new("chown").args(["-R", &format!("{user}:"), &home.display().to_string()]), "chown")?;
        Ok(Account { user, password })
    }

    /// Accounts made so far.
    pub fn accounts(&self) -> usize {
        self.accounts.len()
    }

    /// The target string (`127.0.0.1:PORT`).
    pub fn target(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Every process of the server: sesman, xrdp and what they started (the session's Xorg,
    /// its xterms and their programs, xrdp's process for the connection).
    pub fn pids(&self) -> Vec<u32> {
        tree(&self.children)
    }

    /// xrdp-sesman's and xrdp's own processes (what every session is forked from).
    pub fn daemons(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }

    /// Wait until the session sesman started at the first connection runs its programs (two
    /// xterms, a shell in one and `less` in the other): X draws their windows only then.
    pub fn wait_session(&self) -> Result<(), crate::ScreenError> {
        self.wait_session_of(&self.user, Duration::from_secs(20))
    }

    /// [`LocalXrdp::wait_session`] for account `user`, waiting up to `timeout`.
    pub fn wait_session_of(&self, user: &str, timeout: Duration) -> Result<(), crate::ScreenError> {
        let uid = std::fs::read_to_string("/etc/passwd")
            .ok()
            .and_then(|p| {
                p.lines()
                    .find(|l| l.starts_with(&format!("{user}:")))
                    .and_then(|l| l.split(':').nth(2).map(str::to_owned))
            })
            .ok_or_else(|| crate::ScreenError::Screen(format!("no account {user}")))?;
        let programs = || {
            let mut names = Vec::new();
            for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                let Ok(status) = std::fs::read_to_string(e.path().join("status")) else { continue };
                let field = |k: &str| {
                    status
                        .lines()
                        .find_map(|l| l.strip_prefix(k))
                        .map(|v| v.split_whitespace().next().unwrap_or("").to_owned())
                };
                if field("Uid:").as_deref() == Some(uid.as_str()) {
                    names.extend(field("Name:"));
                }
            }
            names
        };
        wait_for("the xrdp session's programs", timeout, || {
            let n = programs();
            n.iter().filter(|p| *p == "xterm").count() >= 2
                && n.iter().any(|p| p == "less")
                && n.iter().any(|p| p == "sh")
        })?;
        std::thread::sleep(Duration::from_millis(500));
        Ok(())
    }

    /// The account's credentials (never stored in a record).
    pub fn credentials(&self) -> Account {
        self.credentials_of(0).expect("the first account is made at the start")
    }

    /// Account `i`'s credentials (never stored in a record).
    pub fn credentials_of(&self, i: usize) -> Option<Account> {
        self.accounts.get(i).map(|(u, p)| Account { user: u.clone(), password: p.clone() })
    }

    /// xrdp's name and version, as it prints them.
    pub fn product() -> String {
        Command::new("xrdp")
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().next().map(|l| l.trim().to_owned()))
            .unwrap_or_else(|| "xrdp".into())
    }
}

impl Drop for LocalXrdp {
    fn drop(&mut self) {
        for c in self.children.iter_mut().rev() {
            let _ =
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(c.id() as i32), nix::sys::signal::Signal::SIGTERM);
        }
        std::thread::sleep(Duration::from_millis(300));
        for c in self.children.iter_mut().rev() {
            let _ = c.kill();
            let _ = c.wait();
        }
        // The sessions sesman started for the accounts: Xorg, the xterms, chansrv.
        for (user, _) in &self.accounts {
            let _ = Command::new("pkill").args(["-TERM", "-u", user]).status();
        }
        std::thread::sleep(Duration::from_millis(500));
        for (user, _) in &self.accounts {
            let _ = Command::new("pkill").args(["-KILL", "-u", user]).status();
        }
        std::thread::sleep(Duration::from_millis(200));
        for (user, _) in &self.accounts {
            let _ =
                Command::new("userdel").args(["-r", "-f", user]).stdout(Stdio::null()).stderr(Stdio::null()).status();
        }
        for lock in x_locks() {
            if !self.locks_before.contains(&lock) {
                if let Some(n) =
                    lock.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_prefix(".X")?.strip_suffix("-lock"))
                {
                    let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
                }
                let _ = std::fs::remove_file(&lock);
            }
        }
    }
}
