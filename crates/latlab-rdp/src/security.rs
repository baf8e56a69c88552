//! Packet encryption for the display channel:
//! - Standard RDP Security (MS-RDPBCGR 5.3), 128-bit, non-FIPS: session keys from the client
//!   and server randoms (5.3.5.1), RC4 encryption with an 8-byte MAC in front (5.3.6.1,
//!   optionally the salted MAC of 5.3.6.1.1 that mixes in the encryption count), and the key
//!   update every 4,096 packets (5.3.7.1);
//! - a modern AEAD for comparison: ChaCha20-Poly1305 or AES-128-GCM (RustCrypto), with the
//!   packet counter as nonce and a 16-byte tag behind the ciphertext.
//!
//! The hashes and ciphers are the RustCrypto crates'; this module composes them as the spec
//! says.

use aes_gcm::Aes128Gcm;
use chacha20poly1305::ChaCha20Poly1305;
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use md5::{Digest, Md5};
use rc4::{Rc4, StreamCipher, consts::U16};
use sha1::Sha1;
use thiserror::Error;

/// Why a packet could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SecurityError {
    /// Shorter than its MAC or tag.
    #[error("packet of {0} bytes is shorter than its signature")]
    Short(usize),
    /// The MAC or tag does not match: tampered, reordered or wrong keys.
    #[error("packet signature does not match")]
    BadSignature,
}

/// Packets between RC4 key updates (5.3.7).
pub const KEY_UPDATE_INTERVAL: u32 = 4096;
const PAD1: [u8; 40] = [0x36; 40];
const PAD2: [u8; 48] = [0x5C; 48];

fn sha1(parts: &[&[u8]]) -> [u8; 20] {
    let mut h = Sha1::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn md5(parts: &[&[u8]]) -> [u8; 16] {
    let mut h = Md5::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// The 128-bit session keys of 5.3.5.1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionKeys {
    /// MACKey128.
    pub mac: [u8; 16],
    /// InitialServerEncryptKey128 = InitialClientDecryptKey128.
    pub server_to_client: [u8; 16],
    /// InitialServerDecryptKey128 = InitialClientEncryptKey128.
    pub client_to_server: [u8; 16],
}

impl SessionKeys {
    /// Derive the keys from the 32-byte client and server randoms (5.3.5.1).
    pub fn derive(client_random: &[u8; 32], server_random: &[u8; 32]) -> Self {
        let salted = |s: &[u8], i: &[u8]| md5(&[s, &sha1(&[i, s, client_random, server_random])]);
        let mut pre = [0u8; 48];
        pre[..24].copy_from_slice(&client_random[..24]);
        pre[24..].copy_from_slice(&server_random[..24]);
        let mut master = [0u8; 48];
        for (k, i) in [&b"A"[..], b"BB", b"CCC"].iter().enumerate() {
            master[16 * k..16 * k + 16].copy_from_slice(&salted(&pre, i));
        }
        let mut blob = [0u8; 48];
        for (k, i) in [&b"X"[..], b"YY", b"ZZZ"].iter().enumerate() {
            blob[16 * k..16 * k + 16].copy_from_slice(&salted(&master, i));
        }
        let fin = |k: &[u8]| md5(&[k, client_random, server_random]);
        let mut mac = [0u8; 16];
        mac.copy_from_slice(&blob[..16]);
        Self { mac, server_to_client: fin(&blob[16..32]), client_to_server: fin(&blob[32..48]) }
    }
}

/// The key after `current` (5.3.7.1, 128-bit).
pub fn update_key(initial: &[u8; 16], current: &[u8; 16]) -> [u8; 16] {
    let sha = sha1(&[initial, &PAD1, current]);
    let mut temp = md5(&[initial, &PAD2, &sha]);
    let mut rc4 = Rc4::<U16>::new(&temp.into());
    rc4.apply_keystream(&mut temp);
    temp
}

/// The 8-byte MAC signature of 5.3.6.1 (with `count`, the salted MAC of 5.3.6.1.1).
pub fn mac_signature(mac_key: &[u8; 16], data: &[u8], count: Option<u32>) -> [u8; 8] {
    let len = (data.len() as u32).to_le_bytes();
    let cnt = count.map(u32::to_le_bytes);
    let sha = sha1(&[mac_key, &PAD1, &len, data, cnt.as_ref().map_or(&[][..], |c| &c[..])]);
    let d = md5(&[mac_key, &PAD2, &sha]);
    let mut s = [0u8; 8];
    s.copy_from_slice(&d[..8]);
    s
}

/// Which protection a channel uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// RC4 with the MAC of 5.3.6.1; `salted`: the 5.3.6.1.1 MAC.
    Rc4Mac {
        /// Mix the encryption count into the MAC (SEC_SECURE_CHECKSUM).
        salted: bool,
    },
    /// ChaCha20-Poly1305.
    ChaCha20Poly1305,
    /// AES-128-GCM.
    Aes128Gcm,
}

impl Protection {
    /// Bytes a packet grows by.
    pub fn overhead(self) -> usize {
        match self {
            Protection::Rc4Mac { .. } => 8,
            _ => 16,
        }
    }
}

enum State {
    Rc4 { initial: [u8; 16], current: [u8; 16], rc4: Box<Rc4<U16>>, salted: bool },
    ChaCha(Box<ChaCha20Poly1305>),
    Aes(Box<Aes128Gcm>),
}

/// One direction of a protected channel: the sender seals, the receiver opens, each keeping
/// its packet count (and, for RC4, its cipher state and key generation).
pub struct Channel {
    mac_key: [u8; 16],
    count: u32,
    state: State,
}

impl Channel {
    /// A channel direction with `key` (the direction's initial key) and the session MAC key.
    /// For the AEADs the 16 bytes of `key` are the AES key, or half of the ChaCha20 key
    /// (the MAC key is the other half).
    pub fn new(p: Protection, mac_key: [u8; 16], key: [u8; 16]) -> Self {
        let state = match p {
            Protection::Rc4Mac { salted } => {
                State::Rc4 { initial: key, current: key, rc4: Box::new(Rc4::new(&key.into())), salted }
            }
            Protection::ChaCha20Poly1305 => {
                let mut k = [0u8; 32];
                k[..16].copy_from_slice(&key);
                k[16..].copy_from_slice(&mac_key);
                State::ChaCha(Box::new(ChaCha20Poly1305::new(&k.into())))
            }
            Protection::Aes128Gcm => State::Aes(Box::new(Aes128Gcm::new(&key.into()))),
        };
        Self { mac_key, count: 0, state }
    }

    fn nonce(&self) -> [u8; 12] {
        let mut n = [0u8; 12];
        n[..4].copy_from_slice(&self.count.to_le_bytes());
        n
    }

    /// RC4: after every 4,096 packets the key is updated and the cipher restarted (5.3.7).
    fn after_packet(&mut self) {
        self.count = self.count.wrapping_add(1);
        if let State::Rc4 { initial, current, rc4, .. } = &mut self.state
            && self.count.is_multiple_of(KEY_UPDATE_INTERVAL)
        {
            *current = update_key(initial, current);
            **rc4 = Rc4::new(&(*current).into());
        }
    }

    /// Protect `data` into `out` (cleared first).
    pub fn seal(&mut self, data: &[u8], out: &mut Vec<u8>) {
        out.clear();
        let nonce = self.nonce();
        match &mut self.state {
            State::Rc4 { rc4, salted, .. } => {
                let sig = mac_signature(&self.mac_key, data, salted.then_some(self.count));
                out.extend_from_slice(&sig);
                out.extend_from_slice(data);
                rc4.apply_keystream(&mut out[8..]);
            }
            State::ChaCha(c) => {
                out.extend_from_slice(data);
                let tag = c.encrypt_in_place_detached(&nonce.into(), b"", out).unwrap_or_default();
                out.extend_from_slice(&tag);
            }
            State::Aes(c) => {
                out.extend_from_slice(data);
                let tag = c.encrypt_in_place_detached(&nonce.into(), b"", out).unwrap_or_default();
                out.extend_from_slice(&tag);
            }
        }
        self.after_packet();
    }

    /// Check and decrypt `packet` into `out` (cleared first).
    pub fn open(&mut self, packet: &[u8], out: &mut Vec<u8>) -> Result<(), SecurityError> {
        out.clear();
        out.extend_from_slice(packet);
        let body = self.open_in_place(out, true)?;
        out.truncate(body.end);
        out.drain(..body.start);
        Ok(())
    }

    /// Decrypt `packet` where it lies (no copy): the range of `packet` that holds the
    /// plaintext. `check_mac: false` skips RC4's MAC check (seed 000's DisableMACCheck; the
    /// stream still advances, so the channel stays in step); an AEAD's tag is part of its
    /// decryption and always checked.
    pub fn open_in_place(
        &mut self,
        packet: &mut [u8],
        check_mac: bool,
    ) -> Result<std::ops::Range<usize>, SecurityError> {
        let nonce = self.nonce();
        let res = match &mut self.state {
            State::Rc4 { rc4, salted, .. } => {
                if packet.len() < 8 {
                    return Err(SecurityError::Short(packet.len()));
                }
                let (sig, body) = packet.split_at_mut(8);
                rc4.apply_keystream(body);
                let ok = !check_mac || mac_signature(&self.mac_key, body, salted.then_some(self.count))[..] == *sig;
                if ok { Ok(8..packet.len()) } else { Err(SecurityError::BadSignature) }
            }
            State::ChaCha(_) | State::Aes(_) => {
                if packet.len() < 16 {
                    return Err(SecurityError::Short(packet.len()));
                }
                let n = packet.len() - 16;
                let (body, tag) = packet.split_at_mut(n);
                let tag = &*tag;
                let ok = match &mut self.state {
                    State::ChaCha(c) => c.decrypt_in_place_detached(&nonce.into(), b"", body, tag.into()).is_ok(),
                    State::Aes(c) => c.decrypt_in_place_detached(&nonce.into(), b"", body, tag.into()).is_ok(),
                    State::Rc4 { .. } => false,
                };
                if ok { Ok(0..n) } else { Err(SecurityError::BadSignature) }
            }
        };
        // The RC4 stream advanced either way; the count moves with it so both ends stay in step.
        self.after_packet();
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn keys_mac_and_update_match_an_independent_transcription() {
        // Expected values from an independent transcription of MS-RDPBCGR 5.3.5.1, 5.3.6.1
        // and 5.3.7.1 in Python (hashlib MD5/SHA-1, a textbook RC4), for client random
        // 0x00..0x1f and server random 0x20..0x3f.
        let cr: [u8; 32] = core::array::from_fn(|i| i as u8);
        let sr: [u8; 32] = core::array::from_fn(|i| 0x20 + i as u8);
        let k = SessionKeys::derive(&cr, &sr);
        assert_eq!(hex(&k.mac), "815370c6e31347c463ed25f1af48bbdf");
        assert_eq!(hex(&k.server_to_client), "1cb207f61b7cd10dca9ec78871d0a142");
        assert_eq!(hex(&k.client_to_server), "702783c08474414a33a259c6faed480c");
        assert_eq!(hex(&mac_signature(&k.mac, b"latlab", None)), "553a3d4121b2a611");
        assert_eq!(hex(&mac_signature(&k.mac, b"latlab", Some(5))), "ce31c50462640ba9");
        assert_eq!(hex(&update_key(&k.server_to_client, &k.server_to_client)), "b6032cb2d47f62bf6c234d4684389586");
    }

    #[test]
    fn channels_round_trip_across_key_updates_and_catch_tampering() {
        let k = SessionKeys::derive(&[7; 32], &[9; 32]);
        for p in [
            Protection::Rc4Mac { salted: false },
            Protection::Rc4Mac { salted: true },
            Protection::ChaCha20Poly1305,
            Protection::Aes128Gcm,
        ] {
            let mut tx = Channel::new(p, k.mac, k.server_to_client);
            let mut rx = Channel::new(p, k.mac, k.server_to_client);
            let (mut wire, mut back) = (Vec::new(), Vec::new());
            for i in 0..(KEY_UPDATE_INTERVAL + 10) {
                let pdu = vec![(i % 251) as u8; 1 + (i as usize % 40)];
                tx.seal(&pdu, &mut wire);
                assert_eq!(wire.len(), pdu.len() + p.overhead());
                rx.open(&wire, &mut back).unwrap_or_else(|e| panic!("{p:?} packet {i}: {e}"));
                assert_eq!(back, pdu);
            }
            // A flipped bit is caught; a packet shorter than its signature is refused.
            tx.seal(b"hello", &mut wire);
            wire[2] ^= 1;
            assert_eq!(rx.open(&wire, &mut back), Err(SecurityError::BadSignature), "{p:?}");
            assert_eq!(rx.open(&wire[..3], &mut back), Err(SecurityError::Short(3)));
        }
        // After 4,096 packets RC4 runs on a new key: the same plaintext encrypts differently
        // from a channel that never updated (checked against a fresh cipher on the old key).
        let mut tx = Channel::new(Protection::Rc4Mac { salted: false }, k.mac, k.server_to_client);
        let mut wire = Vec::new();
        for _ in 0..KEY_UPDATE_INTERVAL {
            tx.seal(b"x", &mut wire);
        }
        tx.seal(b"after", &mut wire);
        let mut fresh = Rc4::<U16>::new(&update_key(&k.server_to_client, &k.server_to_client).into());
        let mut expect = *b"after";
        fresh.apply_keystream(&mut expect);
        assert_eq!(&wire[8..], &expect);
    }

    #[test]
    fn in_place_opening_matches_the_copying_one_and_only_rc4_may_skip_its_mac() {
        let k = SessionKeys::derive(&[3; 32], &[4; 32]);
        for p in [Protection::Rc4Mac { salted: true }, Protection::ChaCha20Poly1305, Protection::Aes128Gcm] {
            let mut tx = Channel::new(p, k.mac, k.server_to_client);
            let mut rx = Channel::new(p, k.mac, k.server_to_client);
            let mut wire = Vec::new();
            for i in 0..50u8 {
                let pdu = vec![i; 3 + i as usize];
                tx.seal(&pdu, &mut wire);
                let r = rx.open_in_place(&mut wire, true).unwrap();
                assert_eq!(&wire[r], &pdu[..], "{p:?}");
            }
            // A forged signature: refused when checked; with the check skipped RC4 still
            // decrypts (and stays in step for the next packet), an AEAD still refuses.
            tx.seal(b"forged", &mut wire);
            wire[0] ^= 1;
            let skipped = rx.open_in_place(&mut wire.clone(), false);
            match p {
                Protection::Rc4Mac { .. } => {
                    let mut w = wire.clone();
                    let mut rx2 = Channel::new(p, k.mac, k.server_to_client);
                    let mut tx2 = Channel::new(p, k.mac, k.server_to_client);
                    let mut scratch = Vec::new();
                    for i in 0..50u8 {
                        tx2.seal(&vec![i; 3 + i as usize], &mut scratch);
                        rx2.open_in_place(&mut scratch, true).unwrap();
                    }
                    assert_eq!(rx2.open_in_place(&mut w, true), Err(SecurityError::BadSignature));
                    assert_eq!(skipped.map(|r| wire.len() - r.start), Ok(6));
                }
                _ => assert_eq!(skipped, Err(SecurityError::BadSignature), "{p:?}"),
            }
            tx.seal(b"next", &mut wire);
            let r = rx.open_in_place(&mut wire, true).unwrap();
            assert_eq!(&wire[r], b"next", "{p:?}: in step after the skipped check");
        }
    }
}
