//! The record of one `display view` session: the pipeline's per-stage figures for a single
//! session against a remote server or the in-process pair.

use super::*;

/// The record of one `display view` session (against a remote server, or the in-process
/// pair when `server` is given), into `rec` begun before the session.
pub fn view_record(
    mut rec: RunRecord,
    cfg: &SessionConfig,
    pace: Pace,
    vc: &ViewConfig,
    peer: &str,
    server: Option<&ServerReport>,
    client: &ClientReport,
) -> RunRecord {
    rec.mode = "view".into();
    rec.config("server", peer);
    rec.config("workload", cfg.workload.name());
    rec.config("seconds", cfg.duration_ms as f64 / 1000.0);
    rec.config("screen", format!("{}x{}x{}", cfg.width, cfg.height, cfg.bpp));
    rec.config("codec", cfg.codec.name());
    rec.config("crypto", cfg.crypto.name());
    rec.config("orders", cfg.encoder.orders);
    rec.config("rcvbuf", vc.rcvbuf);
    rec.config("threshold", vc.threshold);
    rec.config("client_speed", vc.speed);
    rec.config("cures", vc.cures.describe());
    rec.config("pace", if pace == Pace::RealTime { "real time" } else { "flat out" });
    let secs = client.wall_ns.max(1) as f64 / 1e9;
    let t = client.times;
    rec.metric("view.wire_bytes_per_s", client.bytes as f64 / secs, "B/s");
    rec.metric("view.pdus_per_s", client.pdus as f64 / secs, "1/s");
    rec.metric("view.reads_per_s", client.reads as f64 / secs, "1/s");
    rec.metric("view.client.cpu_fraction", t.total_ns as f64 / client.wall_ns.max(1) as f64, "ratio");
    for (stage, ns) in t.stages() {
        rec.metric(&format!("view.{stage}.cpu_share"), ns as f64 / t.total_ns.max(1) as f64, "ratio");
    }
    let [frames, sent, dropped] = client.server_frames;
    rec.metric("view.frames", frames, "count");
    rec.metric("view.frames_sent", sent, "count");
    rec.metric("view.frames_dropped", dropped, "count");
    rec.metric("view.input_pdus", client.input_pdus, "count");
    rec.metric("view.input_bytes", client.input_bytes, "B");
    rec.metric("view.frames_checked", client.frames_checked, "count");
    if let Some(s) = server {
        rec.metric(
            "view.server.cpu_fraction",
            (s.render_ns + s.encode_ns + s.send_ns) as f64 / s.wall_ns.max(1) as f64,
            "ratio",
        );
        rec.metric("view.server.input_events", s.input_events, "count");
        rec.metric("view.server.cache_misses", s.cache_misses, "count");
        rec.metric(
            "view.server.cache_hit_ratio",
            s.cache_hits as f64 / (s.cache_hits + s.cache_misses).max(1) as f64,
            "ratio",
        );
        rec.metric("view.server.input_expected", s.input_expected, "count");
        if s.input_events != s.input_expected {
            rec.warn(format!(
                "the server received {} of the script's {} input events",
                s.input_events, s.input_expected
            ));
        }
    }
    rec.config("screen_hash", format!("{:016x}", client.screen_hash));
    rec.finish(RunStatus::Complete);
    rec
}
