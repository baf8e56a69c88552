//! Update PDUs: packing drawing orders and bitmap rectangles into PDUs of a bounded size, and
//! reading them back. An orders PDU is a TS_UPDATE_ORDERS body (MS-RDPBCGR 2.2.9.1.1.3.1.1:
//! updateType 0, two pad bytes, numberOrders, two pad bytes, then the orders of MS-RDPEGDI
//! 2.2.2.2); a bitmap PDU is a TS_UPDATE_BITMAP_DATA ([`crate::bitmap::encode_bitmap_update`]).
//! The primary-order state lives as long as the connection, across PDUs.

use crate::bitmap::{BitmapRect, decode_bitmap_update, encode_bitmap_update};
use crate::orders::{CacheBitmapRev2, OrderError, OrderState, PrimaryOrder, TS_SECONDARY};

/// updateType of an orders PDU.
pub const UPDATETYPE_ORDERS: u16 = 0x0000;
/// updateType of a bitmap PDU.
pub const UPDATETYPE_BITMAP: u16 = 0x0001;
/// Bytes of the TS_UPDATE_ORDERS header.
pub const ORDERS_HEADER: usize = 8;
/// Bytes of a TS_BITMAP_DATA rectangle's fixed fields.
const RECT_FIXED: usize = 18;

/// Collects orders and bitmap rectangles into PDUs of at most `max` bytes (a lone order or
/// rectangle larger than that gets a PDU of its own). Orders and rectangles keep their
/// relative order: switching between the two closes the PDU being filled.
#[derive(Debug)]
pub struct UpdateBuilder {
    max: usize,
    pdus: Vec<Vec<u8>>,
    orders: Vec<u8>,
    n_orders: u16,
    rects: Vec<BitmapRect>,
    rect_bytes: usize,
    state: OrderState,
    scratch: Vec<u8>,
}

impl UpdateBuilder {
    /// A builder for PDUs of at most `max` bytes, with a fresh order state.
    pub fn new(max: usize) -> Self {
        Self {
            max,
            pdus: Vec::new(),
            orders: Vec::new(),
            n_orders: 0,
            rects: Vec::new(),
            rect_bytes: 0,
            state: OrderState::default(),
            scratch: Vec::new(),
        }
    }

    /// Close the PDU being filled, if any.
    pub fn flush(&mut self) {
        if self.n_orders > 0 {
            let mut p = Vec::with_capacity(ORDERS_HEADER + self.orders.len());
            p.extend_from_slice(&UPDATETYPE_ORDERS.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            p.extend_from_slice(&self.n_orders.to_le_bytes());
            p.extend_from_slice(&[0, 0]);
            p.append(&mut self.orders);
            self.pdus.push(p);
            self.n_orders = 0;
        }
        if !self.rects.is_empty() {
            self.pdus.push(encode_bitmap_update(&self.rects));
            self.rects.clear();
            self.rect_bytes = 0;
        }
    }

    fn room_for_order(&mut self, len: usize) {
        if !self.rects.is_empty()
            || self.n_orders == u16::MAX
            || (self.n_orders > 0 && ORDERS_HEADER + self.orders.len() + len > self.max)
        {
            self.flush();
        }
    }

    /// Append a whole encoded secondary order.
    pub fn secondary(&mut self, order: &[u8]) {
        self.room_for_order(order.len());
        self.orders.extend_from_slice(order);
        self.n_orders += 1;
    }

    /// Append a Cache Bitmap Revision 2 order.
    pub fn cache_bitmap(&mut self, c: &CacheBitmapRev2) -> Result<(), OrderError> {
        let b = c.encode()?;
        self.secondary(&b);
        Ok(())
    }

    /// Append a primary order, delta-coded against the connection's order state.
    pub fn primary(&mut self, o: &PrimaryOrder) {
        // Encoding moves the state, so the size is found on a copy first.
        let mut probe = self.state.clone();
        self.scratch.clear();
        probe.encode(o, &mut self.scratch);
        self.room_for_order(self.scratch.len());
        self.state = probe;
        self.orders.extend_from_slice(&self.scratch);
        self.n_orders += 1;
    }

    /// Append a bitmap rectangle.
    pub fn rect(&mut self, r: BitmapRect) {
        let size = RECT_FIXED + r.data.len() + if r.compressed == Some(true) { 8 } else { 0 };
        if self.n_orders > 0 || (!self.rects.is_empty() && 4 + self.rect_bytes + size > self.max) {
            self.flush();
        }
        self.rect_bytes += size;
        self.rects.push(r);
    }

    /// Closed PDUs so far.
    pub fn pdus(&self) -> &[Vec<u8>] {
        &self.pdus
    }

    /// Take the closed PDUs.
    pub fn take(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.pdus)
    }
}

/// One order of an orders PDU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// A primary drawing order.
    Primary(PrimaryOrder),
    /// A Cache Bitmap Revision 2 order.
    CacheBitmap(CacheBitmapRev2),
}

/// What an update PDU holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// Orders, in sequence.
    Orders(Vec<Order>),
    /// Bitmap rectangles.
    Bitmap(Vec<BitmapRect>),
}

/// Read an update PDU; `state` is the connection's primary-order state.
pub fn decode_update(pdu: &[u8], state: &mut OrderState) -> Result<Update, OrderError> {
    if pdu.len() < 2 {
        return Err(OrderError::Truncated("updateType"));
    }
    match u16::from_le_bytes([pdu[0], pdu[1]]) {
        UPDATETYPE_ORDERS => {
            if pdu.len() < ORDERS_HEADER {
                return Err(OrderError::Truncated("TS_UPDATE_ORDERS header"));
            }
            let n = u16::from_le_bytes([pdu[4], pdu[5]]) as usize;
            let mut at = ORDERS_HEADER;
            let mut out = Vec::with_capacity(n.min(pdu.len()));
            for _ in 0..n {
                let rest = pdu.get(at..).filter(|r| !r.is_empty()).ok_or(OrderError::Truncated("order"))?;
                if rest[0] & TS_SECONDARY != 0 {
                    let (c, len) = CacheBitmapRev2::decode(rest)?;
                    out.push(Order::CacheBitmap(c));
                    at += len;
                } else {
                    let (o, len) = state.decode(rest)?;
                    out.push(Order::Primary(o));
                    at += len;
                }
            }
            if at != pdu.len() {
                return Err(OrderError::Invalid("bytes after the last order"));
            }
            Ok(Update::Orders(out))
        }
        UPDATETYPE_BITMAP => Ok(Update::Bitmap(decode_bitmap_update(pdu)?)),
        _ => Err(OrderError::Invalid("unknown updateType")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders::Rect;

    #[test]
    fn builds_and_reads_back() {
        let mut b = UpdateBuilder::new(64);
        let fill =
            |x| PrimaryOrder::OpaqueRect { rect: Rect { left: x, top: 2, width: 3, height: 4 }, color: [1, 2, 3] };
        for x in 0..20 {
            b.primary(&fill(x));
        }
        b.rect(BitmapRect { dest: [0, 0, 3, 0], width: 4, height: 1, bpp: 8, compressed: None, data: vec![9; 4] });
        b.primary(&fill(100));
        b.flush();
        let pdus = b.take();
        assert!(pdus.len() >= 3 && pdus.iter().all(|p| p.len() <= 64));
        let mut st = OrderState::default();
        let mut xs = Vec::new();
        let mut rects = 0;
        for p in &pdus {
            match decode_update(p, &mut st).unwrap() {
                Update::Orders(os) => {
                    for o in os {
                        match o {
                            Order::Primary(PrimaryOrder::OpaqueRect { rect, .. }) => xs.push(rect.left),
                            other => panic!("{other:?}"),
                        }
                    }
                }
                Update::Bitmap(r) => rects += r.len(),
            }
        }
        assert_eq!(xs, (0..20).chain([100]).collect::<Vec<_>>());
        assert_eq!(rects, 1);
        assert!(decode_update(&[0, 0, 0, 0, 1, 0, 0, 0], &mut st).is_err());
        assert!(decode_update(&[7, 0], &mut st).is_err());
    }
}
