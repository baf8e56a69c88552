//! latlab's RDP client against a real server on this machine: FreeRDP's shadow server over an
//! Xvfb display running xterm. Skipped with the reason when the packages are
//! missing (a failure under CI=true, where .ci/run installs them).

use latlab_keyscreen::local::{LocalShadow, missing};
use latlab_model::testing::skip;
use latlab_rdp_peers::connect::{ClientSettings, connect};
use latlab_rdp_peers::session::RdpSession;
use latlab_rdp_peers::trust::{Credentials, Target, Trust};
use latlab_rdp_peers::typing::{TypingPlan, measure};

fn settings() -> ClientSettings {
    ClientSettings { desktop: (1024, 768), bpp: 16, compression: Some(latlab_rdp::CompressionType::Xcrush) }
}

fn nobody() -> Result<Credentials, latlab_rdp_peers::trust::TrustError> {
    Ok(Credentials { user: "latlab".into(), password: "unused".into(), domain: None })
}

#[test]
fn types_into_xterm_through_the_shadow_server_and_finds_every_glyph() {
    if let Some(why) = missing() {
        return skip(&why);
    }
    let server = LocalShadow::start().expect("start the shadow server");
    let target = Target::parse(&server.target()).unwrap();
    let conn = connect(&target, &Trust::Insecure, nobody, &settings()).expect("connect");
    assert_eq!(conn.server.desktop, (1024, 768));
    assert_eq!(conn.server.trust, "insecure_unchecked");
    let mut s = RdpSession::new(conn).unwrap();
    let plan = TypingPlan {
        keys: 30,
        interval_ns: 60_000_000,
        gaps: latlab_desktop::gaps::KeyGaps::default(),
        timeout_ns: 2_000_000_000,
        settle_ns: 300_000_000,
        roi: None,
        max_per_line: 20,
        snapshot_dir: None,
    };
    let r = measure(&mut s, &plan, None).expect("typing");
    eprintln!("{:?} cells {:?} stages {:?} counts {:?}", r.latencies_ns, r.cells, s.stage_times(), s.counts());
    assert_eq!(r.lost, 0, "every key's glyph was found");
    assert_eq!(r.latencies_ns.len(), 30);
    assert!(s.counts().updates.get("bitmap").is_some_and(|b| b.0 > 0), "the server sent bitmaps latlab decoded");
    s.close();
}
