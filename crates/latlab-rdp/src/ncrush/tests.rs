//! Tests of `ncrush.rs`.

use super::tables::*;
use super::*;
use proptest::prelude::*;

#[test]
fn codes_are_complete_prefix_codes() {
    // Kraft: a complete code sums to exactly 1 — a transcription slip in a length breaks it.
    let kraft = |l: &[u8]| l.iter().map(|&n| 1u64 << (16 - n)).sum::<u64>();
    assert_eq!(kraft(&HUFF_LENGTH_LEC), 1 << 16);
    assert_eq!(kraft(&HUFF_LENGTH_LOM), 1 << 16);
    assert!(LEC_TABLE.iter().all(|&e| e >> 9 != 0));
    assert!(LOM_TABLE.iter().all(|&e| e >> 9 != 0));
}

#[test]
fn derived_codebooks_match_the_spec() {
    // MS-RDPEGDI 3.1.8.1.4.2, table 5 (HuffCodeL), all 32 values.
    #[rustfmt::skip]
        let table5: [u16; 32] = [
            0x0001, 0x0000, 0x0002, 0x0009, 0x0006, 0x0005, 0x000d, 0x000b,
            0x0003, 0x001b, 0x0007, 0x0017, 0x0037, 0x000f, 0x004f, 0x006f,
            0x002f, 0x00ef, 0x001f, 0x005f, 0x015f, 0x009f, 0x00df, 0x01df,
            0x003f, 0x013f, 0x00bf, 0x01bf, 0x007f, 0x017f, 0x00ff, 0x01ff,
        ];
    assert_eq!(HUFF_CODE_LOM, table5);
    // Table 2 values the spec and its walkthrough quote: code 131 is 0x02a7 (10 bits),
    // literal 0x01 is 0x24 and 0x00 is 0x04 (6 bits), code 258 is 0x39 (7 bits).
    assert_eq!((HUFF_CODE_LEC[131], HUFF_LENGTH_LEC[131]), (0x02a7, 10));
    assert_eq!((HUFF_CODE_LEC[1], HUFF_LENGTH_LEC[1]), (0x24, 6));
    assert_eq!((HUFF_CODE_LEC[0], HUFF_LENGTH_LEC[0]), (0x04, 6));
    assert_eq!((HUFF_CODE_LEC[258], HUFF_LENGTH_LEC[258]), (0x39, 7));
}

#[test]
fn class_lookups_agree_with_the_tables() {
    for len in 2..=MAX_LOM {
        let c = lom_class(len);
        let by_table = if len > 769 { 28 } else { LOM_BASE[..28].partition_point(|&b| b as usize <= len) - 1 };
        assert_eq!(c, by_table, "length {len}");
    }
    for off in 0..65536usize {
        let c = offset_class(off);
        assert_eq!(c, COPY_OFFSET_BASE.partition_point(|&b| b as usize <= off + 1) - 1, "offset {off}");
        assert!(
            COPY_OFFSET_BASE[c] as usize <= off + 1
                && off + 1 - (COPY_OFFSET_BASE[c] as usize) < 1 << COPY_OFFSET_BITS[c]
        );
    }
}

#[test]
fn classes_follow_the_spec_examples() {
    // 3.1.8.1.4.4.2.1: LoM code 23 with extra 3 → 117.
    assert_eq!(lom_class(117), 23);
    assert_eq!(LOM_BASE[23] + 3, 117);
    assert_eq!(lom_class(2), 0);
    assert_eq!(lom_class(769), 27);
    assert_eq!(lom_class(770), 28);
    // The walkthrough: a copy one byte back uses LUT index 1 (base 2).
    assert_eq!(offset_class(1), 1);
    assert_eq!(offset_class(65535), 31);
}

#[test]
fn walkthrough_stream_decodes() {
    // Hand-assembled: literal 0x01, literal 0x00, copy offset 1 (code 258, no extra bits)
    // length 2 (LoM code 0, no extra bits), end of stream.
    let mut out = Vec::new();
    let mut w = LsbWriter::new(&mut out);
    w.put(0x24, 6);
    w.put(0x04, 6);
    w.put(0x39, 7);
    w.put(0x1, 4);
    w.put(HUFF_CODE_LEC[256] as u32, 13);
    w.finish();
    let mut d = NcrushDecompressor::new();
    assert_eq!(d.decompress(&out, PACKET_COMPRESSED | TYPE).unwrap(), &[1, 0, 0, 0]);
    // The offset went into the cache: code 289 (cache slot 0), length 3, then EOS.
    let mut out = Vec::new();
    let mut w = LsbWriter::new(&mut out);
    w.put(HUFF_CODE_LEC[289] as u32, HUFF_LENGTH_LEC[289] as u32);
    w.put(HUFF_CODE_LOM[1] as u32, HUFF_LENGTH_LOM[1] as u32);
    w.put(HUFF_CODE_LEC[256] as u32, 13);
    w.finish();
    assert_eq!(d.decompress(&out, PACKET_COMPRESSED | TYPE).unwrap(), &[0, 0, 0]);
}

#[test]
fn hostile_streams_are_errors() {
    let mut d = NcrushDecompressor::new();
    // No EOS: runs out of bits.
    assert!(d.decompress(&[0x24], PACKET_COMPRESSED | TYPE).is_err());
    // An empty cache slot (offset 0).
    let mut out = Vec::new();
    let mut w = LsbWriter::new(&mut out);
    w.put(HUFF_CODE_LEC[290] as u32, HUFF_LENGTH_LEC[290] as u32);
    w.put(HUFF_CODE_LOM[0] as u32, HUFF_LENGTH_LOM[0] as u32);
    w.finish();
    let mut d = NcrushDecompressor::new();
    assert!(d.decompress(&out, PACKET_COMPRESSED | TYPE).is_err());
    // AT_FRONT on an empty history, and a foreign type.
    let mut d = NcrushDecompressor::new();
    assert!(d.decompress(&[0; 4], PACKET_COMPRESSED | PACKET_AT_FRONT | TYPE).is_err());
    assert!(d.decompress(&[0; 4], PACKET_COMPRESSED | 1).is_err());
    // LEC code 293: defined length, no meaning (fuzzer's find: flags 0x32, ff ff ff 08).
    let mut d = NcrushDecompressor::new();
    assert!(d.decompress(&[0xff, 0xff, 0xff, 0x08], 0x32).is_err());
    // Unused LoM codes 30/31.
    let mut out = Vec::new();
    let mut w = LsbWriter::new(&mut out);
    w.put(HUFF_CODE_LEC[257] as u32, HUFF_LENGTH_LEC[257] as u32);
    w.put(HUFF_CODE_LOM[31] as u32, HUFF_LENGTH_LOM[31] as u32);
    w.finish();
    let mut d = NcrushDecompressor::new();
    assert!(d.decompress(&out, PACKET_COMPRESSED | TYPE).is_err());
}

fn roundtrip(packets: &[Vec<u8>]) {
    let mut c = NcrushCompressor::new();
    let mut d = NcrushDecompressor::new();
    let mut out = Vec::new();
    for (i, p) in packets.iter().enumerate() {
        let f = c.compress(p, &mut out);
        assert_eq!(d.decompress(&out, f).unwrap(), &p[..], "packet {i} flags {f:#x}");
    }
}

#[test]
fn empty_packets_round_trip() {
    // Found by proptest in CI: an empty packet was flagged compressed with no EOS code.
    roundtrip(&[vec![], vec![1, 2, 3], vec![]]);
}

#[test]
fn history_slides_and_flushes() {
    let block: Vec<u8> = (0..7000u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut packets: Vec<Vec<u8>> = (0..30).map(|i| block.iter().map(|b| b.wrapping_add(i % 3)).collect()).collect();
    packets.push(vec![9; 40_000]); // larger than half: flushed and compressed from the front
    packets.push(vec![1; 65_530]); // larger than the history allows: sent as is
    packets.extend((0..5).map(|_| block.clone()));
    roundtrip(&packets);
}

proptest! {
    #[test]
    fn any_packets_round_trip(packets in proptest::collection::vec(proptest::collection::vec(0u8..6, 0..5000), 1..30)) {
        roundtrip(&packets);
    }

    #[test]
    fn hostile_input_never_panics(data in proptest::collection::vec(any::<u8>(), 0..400), flags in any::<u8>()) {
        let mut d = NcrushDecompressor::new();
        let _ = d.decompress(&data, flags);
        let _ = d.decompress(&data, flags | PACKET_COMPRESSED | TYPE);
    }
}
