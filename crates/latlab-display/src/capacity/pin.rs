//! The server on a CPU of its own and its clients on the others, for a ramp; undone when the
//! guard drops.

use latlab_model::record::RunRecord;

/// The server on a CPU of its own, the clients (this thread and the threads it starts) on
/// the others; undone when the returned guard drops, however the run ends. Records the split
/// (or why there is none) and the capabilities; returns the guard and the server's CPU count.
pub(super) fn pin_server(rec: &mut RunRecord, pids: &[u32]) -> (Option<Pinned>, usize) {
    let pinned = Pinned::split(pids);
    let mut server_cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    match &pinned {
        Ok(pin) => {
            server_cpus = pin.server.len();
            rec.config("server_cpus", format!("{:?}", pin.server));
            rec.config("client_cpus", format!("{:?}", pin.clients));
        }
        Err(why) => rec.warn(format!("the server shares every CPU with the clients: {why}")),
    }
    rec.capabilities.extend(pinned.as_ref().map(|p| p.caps.clone()).unwrap_or_default());
    (pinned.ok(), server_cpus)
}

/// The server pinned to CPUs of its own and this thread (the clients') to the rest; this
/// thread's CPUs are given back when dropped.
pub(super) struct Pinned {
    server: Vec<usize>,
    clients: Vec<usize>,
    restore: Vec<usize>,
    caps: Vec<latlab_model::capability::Capability>,
}

impl Pinned {
    /// The last CPU this thread may use for the server's processes `pids` (what they start
    /// later inherits it), the others for the clients.
    fn split(pids: &[u32]) -> Result<Self, crate::DisplayError> {
        let all = latlab_sys::platform::allowed_cpus();
        if all.len() < 2 {
            return Err(crate::DisplayError::Study(format!(
                "{} CPU allowed here: nothing to give the server alone",
                all.len()
            )));
        }
        let (clients, server) = (all[..all.len() - 1].to_vec(), all[all.len() - 1..].to_vec());
        let mut s = None;
        for &pid in pids {
            let c = latlab_sys::platform::set_process_affinity(pid, &server);
            if !c.granted {
                return Err(crate::DisplayError::Study(c.advice.clone().unwrap_or_default()));
            }
            s.get_or_insert(c);
        }
        let s = s.ok_or_else(|| crate::DisplayError::Study("no server process to pin".into()))?;
        let c = latlab_sys::platform::set_affinity(&clients);
        let me = Self { server, clients, restore: all, caps: vec![s, c.clone()] };
        if !c.granted {
            return Err(crate::DisplayError::Study(c.advice.unwrap_or_default()));
        }
        Ok(me)
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        latlab_sys::platform::set_affinity(&self.restore);
    }
}
