//! A real client's input to a served session: fast-path and slow-path PDUs parsed and
//! counted by kind, what the session must act on; and whether the client takes latlab's orders.

use super::conn::Stop;
use super::plan::InputCounts;
use ironrdp_pdu::rdp::capability_sets::{self as caps, CapabilitySet};
use std::collections::BTreeMap;

/// What the input parser found for the session to act on.
#[derive(Debug, Default)]
pub(super) struct Events {
    /// Scancodes pressed, in order.
    pub(super) keys: Vec<u8>,
    /// A repaint asked for.
    pub(super) refresh: bool,
    /// Output suppressed (Some(true)) or allowed again (Some(false)).
    pub(super) suppress: Option<bool>,
    /// The client asked to end (Shutdown Request, Disconnect Provider Ultimatum).
    pub(super) leaving: bool,
    /// What came on other channels than I/O: channel, data.
    pub(super) channel_data: Vec<(u16, Vec<u8>)>,
}

/// Read every whole PDU at the front of `buf` (consumed), counting into `c` and `channels`.
/// A PDU whose framing cannot be read ends the parse with an error (the stream cannot be
/// resynchronised); one whose content does not read is counted malformed and skipped.
pub(super) fn parse_input(
    buf: &mut Vec<u8>,
    io_channel: u16,
    c: &mut InputCounts,
    channels: &mut BTreeMap<u16, [u64; 2]>,
    ev: &mut Events,
) -> Result<(), Stop> {
    use ironrdp_core::decode;
    use ironrdp_pdu::input::fast_path::{FastPathInput, FastPathInputEvent, KeyboardFlags as FpKey};
    use ironrdp_pdu::input::{InputEvent, scan_code::KeyboardFlags as SlowKey};
    use ironrdp_pdu::rdp::headers::{ShareControlHeader, ShareControlPdu, ShareDataPdu};
    use ironrdp_pdu::x224::X224;
    let mut at = 0;
    while at + 2 <= buf.len() {
        let b = &buf[at..];
        let tpkt = b[0] == 3;
        let len = if tpkt {
            if b.len() < 4 {
                break;
            }
            u16::from_be_bytes([b[2], b[3]]) as usize
        } else if b[0] & 0x3 == 0 {
            match latlab_desktop::wire::pdu_len(b) {
                Some(n) => n,
                None => break,
            }
        } else {
            return Err(Stop(
                format!("the client sent a PDU that is neither fast-path nor TPKT (first byte {:#04x})", b[0]),
                None,
            ));
        };
        if len < 2 {
            return Err(Stop("the client sent a PDU of impossible length".into(), None));
        }
        if b.len() < len {
            break;
        }
        let pdu = &b[..len];
        at += len;
        if !tpkt {
            c.fastpath_pdus += 1;
            channels.entry(io_channel).or_default()[0] += len as u64;
            let Ok(input) = decode::<FastPathInput>(pdu) else {
                c.malformed += 1;
                continue;
            };
            for e in input.input_events() {
                match e {
                    FastPathInputEvent::KeyboardEvent(f, _) if f.contains(FpKey::RELEASE) => c.key_up += 1,
                    FastPathInputEvent::KeyboardEvent(_, code) => {
                        c.key_down += 1;
                        ev.keys.push(*code);
                    }
                    FastPathInputEvent::UnicodeKeyboardEvent(f, _) if f.contains(FpKey::RELEASE) => c.key_up += 1,
                    FastPathInputEvent::UnicodeKeyboardEvent(_, u) => {
                        c.key_down += 1;
                        if let Some(code) = char::from_u32(*u as u32).and_then(latlab_desktop::editor::scancode) {
                            ev.keys.push(code);
                        }
                    }
                    FastPathInputEvent::MouseEvent(_)
                    | FastPathInputEvent::MouseEventEx(_)
                    | FastPathInputEvent::MouseEventRel(_) => c.mouse += 1,
                    FastPathInputEvent::SyncEvent(_) => c.sync += 1,
                    FastPathInputEvent::QoeEvent(_) => c.other += 1,
                }
            }
            continue;
        }
        c.slowpath_pdus += 1;
        let Ok(data) = decode::<X224<ironrdp_pdu::mcs::SendDataRequest<'_>>>(pdu) else {
            if decode::<X224<ironrdp_pdu::mcs::DisconnectProviderUltimatum>>(pdu).is_ok() {
                ev.leaving = true;
            } else {
                c.malformed += 1;
            }
            continue;
        };
        let data = data.0;
        channels.entry(data.channel_id).or_default()[0] += len as u64;
        if data.channel_id != io_channel {
            ev.channel_data.push((data.channel_id, data.user_data.into_owned()));
            continue;
        }
        let Ok(share) = decode::<ShareControlHeader>(data.user_data.as_ref()) else {
            c.malformed += 1;
            continue;
        };
        let ShareControlPdu::Data(d) = share.share_control_pdu else { continue };
        match d.share_data_pdu {
            ShareDataPdu::Input(events) => {
                for e in events.0 {
                    match e {
                        InputEvent::ScanCode(s) if s.flags.contains(SlowKey::RELEASE) => c.key_up += 1,
                        InputEvent::ScanCode(s) => {
                            c.key_down += 1;
                            ev.keys.push(s.key_code as u8);
                        }
                        InputEvent::Unicode(u)
                            if u.flags.contains(ironrdp_pdu::input::unicode::KeyboardFlags::RELEASE) =>
                        {
                            c.key_up += 1
                        }
                        InputEvent::Unicode(u) => {
                            c.key_down += 1;
                            if let Some(code) =
                                char::from_u32(u.unicode_code as u32).and_then(latlab_desktop::editor::scancode)
                            {
                                ev.keys.push(code);
                            }
                        }
                        InputEvent::Mouse(_) | InputEvent::MouseX(_) | InputEvent::MouseRel(_) => c.mouse += 1,
                        InputEvent::Sync(_) => c.sync += 1,
                        InputEvent::Unused(_) => c.other += 1,
                    }
                }
            }
            ShareDataPdu::SuppressOutput(s) => {
                c.suppress_output += 1;
                ev.suppress = Some(s.desktop_rect.is_none());
            }
            ShareDataPdu::RefreshRectangle(_) => {
                c.refresh_rect += 1;
                ev.refresh = true;
            }
            ShareDataPdu::ShutdownRequest => ev.leaving = true,
            _ => {}
        }
    }
    buf.drain(..at);
    Ok(())
}

/// Why a client is sent bitmaps though orders were asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoOrders {
    /// It does not take the orders latlab draws with.
    #[error("the client does not take PatBlt, ScrBlt and MemBlt orders")]
    Orders,
    /// It has no Rev. 2 bitmap cache with three cell caches.
    #[error("the client has no Rev. 2 bitmap cache with three cell caches")]
    Cache,
    /// One of its cell caches holds nothing.
    #[error("the client's bitmap cache has an empty cell cache ({0:?})")]
    EmptyCell([usize; 3]),
}

/// Whether the client takes latlab's orders (PatBlt/OpaqueRect, ScrBlt, MemBlt) and has a
/// Rev. 2 bitmap cache: the cells per cache it allows, or why not.
pub fn orders_supported(confirmed: &[CapabilitySet], want: [usize; 3]) -> Result<[usize; 3], NoOrders> {
    let mut order_ok = false;
    let mut cells = None;
    for c in confirmed {
        match c {
            CapabilitySet::Order(o) => {
                let mut o = o.clone();
                order_ok =
                    [caps::OrderSupportIndex::PatBlt, caps::OrderSupportIndex::ScrBlt, caps::OrderSupportIndex::MemBlt]
                        .into_iter()
                        .all(|i| o.get_support_flag(i));
            }
            CapabilitySet::BitmapCacheRev2(b) if b.num_cell_caches >= 3 => {
                let mut n = [0usize; 3];
                for (i, slot) in n.iter_mut().enumerate() {
                    *slot = (b.cache_cell_info[i].num_entries as usize).min(want[i]);
                }
                cells = Some(n);
            }
            _ => {}
        }
    }
    match (order_ok, cells) {
        (false, _) => Err(NoOrders::Orders),
        (true, None) => Err(NoOrders::Cache),
        (true, Some(n)) if n.contains(&0) => Err(NoOrders::EmptyCell(n)),
        (true, Some(n)) => Ok(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::plan::InputCounts;

    fn fastpath_key(code: u8, release: bool) -> Vec<u8> {
        // fpInputHeader: action 0, one event; length 4; keyboard event (code 0) with flags.
        vec![1 << 2, 4, u8::from(release), code]
    }

    #[test]
    fn fast_path_keys_are_counted_and_pressed_ones_kept() {
        let mut buf = [fastpath_key(0x1E, false), fastpath_key(0x1E, true), fastpath_key(0x30, false)].concat();
        buf.extend_from_slice(&[1 << 2, 4]); // the start of a fourth PDU waits for its rest
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!((c.fastpath_pdus, c.key_down, c.key_up, c.malformed), (3, 2, 1, 0));
        assert_eq!(ev.keys, vec![0x1E, 0x30]);
        assert_eq!(buf, vec![1 << 2, 4]);
        assert_eq!(ch[&1003], [12, 0]);
    }

    #[test]
    fn a_broken_event_is_counted_and_the_stream_goes_on() {
        // One event announced, but its body is an unknown event code 7.
        let mut buf = vec![1 << 2, 3, 7 << 5];
        buf.extend(fastpath_key(0x1E, false));
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!(c.malformed, 1);
        assert_eq!(ev.keys, vec![0x1E]);
        assert!(buf.is_empty());
    }

    #[test]
    fn unframed_bytes_end_the_parse() {
        let mut buf = vec![0x02, 0x10, 0, 0];
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        assert!(parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).is_err());
        let mut zero = vec![0x04, 0x00];
        assert!(parse_input(&mut zero, 1003, &mut c, &mut ch, &mut ev).is_err());
    }

    #[test]
    fn a_tpkt_that_is_not_mcs_data_is_malformed() {
        let mut buf = vec![3, 0, 0, 8, 2, 0xF0, 0x80, 0x55];
        let (mut c, mut ch, mut ev) = (InputCounts::default(), BTreeMap::new(), Events::default());
        parse_input(&mut buf, 1003, &mut c, &mut ch, &mut ev).map_err(|s| s.0).unwrap();
        assert_eq!((c.slowpath_pdus, c.malformed), (1, 1));
        assert!(!ev.leaving);
    }

    #[test]
    fn orders_need_the_orders_and_a_rev2_cache() {
        let mut o =
            caps::Order::new(caps::OrderFlags::NEGOTIATE_ORDER_SUPPORT, caps::OrderSupportExFlags::empty(), 0, 0);
        assert!(orders_supported(&[CapabilitySet::Order(o.clone())], [120, 120, 337]).is_err());
        for i in [caps::OrderSupportIndex::PatBlt, caps::OrderSupportIndex::ScrBlt, caps::OrderSupportIndex::MemBlt] {
            o.set_support_flag(i, true);
        }
        let e = orders_supported(&[CapabilitySet::Order(o.clone())], [120, 120, 337]).unwrap_err();
        assert_eq!(e, NoOrders::Cache);
        let cell = |n| caps::CellInfo { num_entries: n, is_cache_persistent: false };
        let cache = caps::BitmapCacheRev2 {
            cache_flags: caps::CacheFlags::empty(),
            num_cell_caches: 3,
            cache_cell_info: [cell(600), cell(100), cell(2048), cell(0), cell(0)],
        };
        let n = orders_supported(&[CapabilitySet::Order(o), CapabilitySet::BitmapCacheRev2(cache)], [120, 120, 337])
            .unwrap();
        assert_eq!(n, [120, 100, 337]);
    }
}
