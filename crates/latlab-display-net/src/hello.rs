//! The hello line that opens a display connection: the session's settings as `key=value`
//! words after the protocol's magic, and their parser, whose errors name the field.

use super::*;
use latlab_desktop::encoder::EncoderConfig;
use latlab_desktop::policy::PolicyKind;
use latlab_desktop::wire::{Codec, Crypto};
use latlab_desktop::workload::WorkloadKind;

/// Write the session's settings as the hello line.
pub fn hello_line(cfg: &SessionConfig, pace: Pace) -> String {
    let mut s = format!("{MAGIC} workload={}", cfg.workload.name());
    match cfg.workload {
        WorkloadKind::Typing { wpm } => s += &format!(" wpm={wpm}"),
        WorkloadKind::Animation { frames, delay_ms } => s += &format!(" anim_frames={frames} anim_delay_ms={delay_ms}"),
        WorkloadKind::BannerTicker { banner_frames, .. } => s += &format!(" banner_frames={banner_frames}"),
        _ => {}
    }
    let c = cfg.encoder.cells;
    s += &format!(
        " seed={} width={} height={} bpp={} frame_ms={} duration_ms={} warmup_ms={} orders={} cells={},{},{} policy={} max_pdu={} codec={} crypto={} marks={} pace={}\n",
        cfg.seed,
        cfg.width,
        cfg.height,
        cfg.bpp,
        cfg.frame_ms,
        cfg.duration_ms,
        cfg.warmup_ms,
        u8::from(cfg.encoder.orders),
        c[0],
        c[1],
        c[2],
        cfg.encoder.policy.name(),
        cfg.encoder.max_pdu,
        cfg.codec.name(),
        cfg.crypto.name(),
        u8::from(cfg.check_every_frame),
        match pace {
            Pace::RealTime => "real",
            Pace::FlatOut => "flat",
            Pace::Echo { .. } => "echo",
        }
    );
    if let Pace::Echo { working_set_mib } = pace {
        s.insert_str(s.len() - 1, &format!(" ws_mib={working_set_mib}"));
    }
    s
}

/// Read a hello line back into settings; the error names the field.
pub fn parse_hello(line: &str) -> Result<(SessionConfig, Pace), latlab_model::ConfigError> {
    let mut words = line.split_ascii_whitespace();
    if words.next() != Some(MAGIC) {
        return Err(format!("not a latlab display hello (expected '{MAGIC}' first)").into());
    }
    let kv: std::collections::HashMap<&str, &str> =
        words.map(|w| w.split_once('=').ok_or(format!("'{w}' is not key=value"))).collect::<Result<_, _>>()?;
    let get = |k: &str| kv.get(k).copied().ok_or(format!("missing '{k}'"));
    fn num<T: std::str::FromStr>(k: &str, v: &str) -> Result<T, latlab_model::ConfigError> {
        v.parse().map_err(|_| format!("'{k}={v}' is not a number in range").into())
    }
    let name = get("workload")?;
    let mut workload = WorkloadKind::from_name(name).ok_or(format!("unknown workload '{name}'"))?;
    match &mut workload {
        WorkloadKind::Typing { wpm } => *wpm = num("wpm", get("wpm")?)?,
        WorkloadKind::Animation { frames, delay_ms } => {
            *frames = num("anim_frames", get("anim_frames")?)?;
            *delay_ms = num("anim_delay_ms", get("anim_delay_ms")?)?;
            if *frames == 0 || *delay_ms == 0 {
                return Err("animation frames and delay must be positive".into());
            }
        }
        WorkloadKind::BannerTicker { banner_frames, .. } => {
            *banner_frames = num("banner_frames", get("banner_frames")?)?;
            if *banner_frames == 0 {
                return Err("banner_frames must be positive".into());
            }
        }
        _ => {}
    }
    let cells: Vec<usize> = get("cells")?.split(',').map(|c| num("cells", c)).collect::<Result<_, _>>()?;
    let cells: [usize; 3] = cells.try_into().map_err(|_| "cells takes three counts".to_string())?;
    if cells.iter().any(|&c| c == 0 || c > 0x7FFF) {
        return Err("each cache holds 1 to 32767 cells".into());
    }
    let max_pdu: usize = num("max_pdu", get("max_pdu")?)?;
    if !(1024..=30_000).contains(&max_pdu) {
        return Err("max_pdu: 1024 to 30000 bytes".into());
    }
    let policy = get("policy")?;
    let codec = get("codec")?;
    let crypto = get("crypto")?;
    let cfg = SessionConfig {
        width: num("width", get("width")?)?,
        height: num("height", get("height")?)?,
        bpp: num("bpp", get("bpp")?)?,
        workload,
        seed: num("seed", get("seed")?)?,
        frame_ms: num("frame_ms", get("frame_ms")?)?,
        duration_ms: num("duration_ms", get("duration_ms")?)?,
        warmup_ms: num("warmup_ms", get("warmup_ms")?)?,
        encoder: EncoderConfig {
            orders: get("orders")? == "1",
            cells,
            policy: PolicyKind::from_name(policy)
                .filter(|p| *p != PolicyKind::Opt)
                .ok_or(format!("unknown or offline-only policy '{policy}'"))?,
            max_pdu,
        },
        codec: Codec::from_name(codec).ok_or(format!("unknown codec '{codec}'"))?,
        crypto: Crypto::from_name(crypto).ok_or(format!("unknown cipher '{crypto}'"))?,
        check_every_frame: get("marks")? == "1",
        timed: false,
    };
    cfg.validate().map_err(|e| e.to_string())?;
    if cfg.duration_ms > 24 * 3600 * 1000 {
        return Err("duration over a day".into());
    }
    let pace = match get("pace")? {
        "real" => Pace::RealTime,
        "flat" => Pace::FlatOut,
        "echo" => {
            let working_set_mib: u32 = num("ws_mib", get("ws_mib")?)?;
            if working_set_mib > 16 * 1024 {
                return Err("ws_mib: at most 16384".into());
            }
            Pace::Echo { working_set_mib }
        }
        p => return Err(format!("unknown pace '{p}'").into()),
    };
    Ok((cfg, pace))
}

// ---- socket options ------------------------------------------------------------------------
