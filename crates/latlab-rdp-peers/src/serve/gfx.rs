//! RDPGFX (the graphics pipeline, MS-RDPEGFX) for a client that opens it: the dynamic
//! virtual channel (drdynvc) joined as a static channel, IronRDP's graphics pipeline server
//! on it, one surface the size of the desktop, and each frame's damage sent as an
//! uncompressed region between Start Frame and End Frame. The client acknowledges frames
//! (RDPGFX_FRAME_ACKNOWLEDGE) with its decode queue's depth: the frame rate it keeps, seen
//! from the server, and the time from a frame's bytes going out to its acknowledgement.

use super::error::ServeError;
use ironrdp_dvc::DrdynvcServer;
use ironrdp_egfx::server::{GraphicsPipelineHandler, GraphicsPipelineServer};
use ironrdp_pdu::geometry::ExclusiveRectangle;
use ironrdp_svc::StaticChannelSet;
use latlab_sys::clock::monotonic_now;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// What the pipeline's handler learns, read by the session between frames.
#[derive(Debug, Default)]
pub struct Shared {
    /// The capability set negotiated (its version), once ready.
    pub negotiated: Option<String>,
    /// Acknowledgements not yet read: frame id, the client's queue depth, arrival (ns).
    pub acks: Vec<(u32, u32, u64)>,
    /// The client closed the channel.
    pub closed: bool,
}

struct Handler(Arc<Mutex<Shared>>);

impl Handler {
    fn with<R>(&self, f: impl FnOnce(&mut Shared) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl GraphicsPipelineHandler for Handler {
    fn capabilities_advertise(&mut self, _: &ironrdp_egfx::pdu::CapabilitiesAdvertisePdu) {}
    fn on_ready(&mut self, negotiated: &ironrdp_egfx::pdu::CapabilitySet) {
        let name = format!("{negotiated:?}");
        let version = name.split([' ', '{', '(']).next().unwrap_or("?").to_string();
        self.with(|s| s.negotiated = Some(version));
    }
    fn on_frame_ack(&mut self, frame_id: u32, queue_depth: u32, _decoded: u32) {
        let now = monotonic_now();
        self.with(|s| s.acks.push((frame_id, queue_depth, now)));
    }
    fn on_close(&mut self) {
        self.with(|s| s.closed = true);
    }
}

/// The drdynvc channel with the graphics pipeline on it (its frames ZGFX-compressed where that
/// makes them smaller, with `zgfx`), to attach to the acceptor, and what its handler shares.
pub fn channel(zgfx: bool) -> (DrdynvcServer, Arc<Mutex<Shared>>) {
    use ironrdp_graphics::zgfx::CompressionMode;
    let shared = Arc::new(Mutex::new(Shared::default()));
    let mode = if zgfx { CompressionMode::Auto } else { CompressionMode::Never };
    let server = GraphicsPipelineServer::with_compression(Box::new(Handler(shared.clone())), mode);
    (DrdynvcServer::new().with_dynamic_channel(server), shared)
}

/// Acknowledgement figures of a session.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct AckStats {
    /// Per frame acknowledged: its bytes handed to TLS to its acknowledgement read, ns.
    pub ack_ns: Vec<u64>,
    /// Deepest decode queue the client reported.
    pub max_queue_depth: u32,
    /// The negotiated capability version, or why the pipeline was not used.
    pub state: String,
}

/// The pipeline of one session.
pub struct Gfx {
    /// The drdynvc static channel.
    svc: u16,
    user_channel: u16,
    shared: Arc<Mutex<Shared>>,
    surface: Option<u16>,
    /// The desktop, pixels.
    size: (u16, u16),
    /// Frames sent and not yet acknowledged: id, when their bytes went to TLS.
    in_flight: VecDeque<(u32, u64)>,
    pixels: Vec<u8>,
    started: u64,
    /// Figures so far.
    pub stats: AckStats,
}

impl Gfx {
    /// Start drdynvc on `channels` if the client joined it: the pipeline and the bytes that
    /// open it (drdynvc's capabilities, then the graphics channel's creation).
    pub fn start(
        channels: &mut StaticChannelSet,
        user_channel: u16,
        size: (u16, u16),
        shared: Arc<Mutex<Shared>>,
    ) -> Option<(Self, Vec<u8>)> {
        let svc = channels.get_channel_id_by_type::<DrdynvcServer>()?;
        let msgs = channels.get_by_type_mut::<DrdynvcServer>()?.start().ok()?;
        let bytes = ironrdp_svc::server_encode_svc_messages(msgs, svc, user_channel).ok()?;
        let gfx = Gfx {
            svc,
            user_channel,
            shared,
            surface: None,
            size,
            in_flight: VecDeque::new(),
            pixels: Vec::new(),
            started: monotonic_now(),
            stats: AckStats { state: "offered, not opened by the client".into(), ..Default::default() },
        };
        Some((gfx, bytes))
    }

    /// The drdynvc channel's id.
    pub fn channel_id(&self) -> u16 {
        self.svc
    }

    /// Whether frames go through the pipeline.
    pub fn active(&self) -> bool {
        self.surface.is_some()
    }

    /// Frames sent and not acknowledged.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The graphics pipeline's dynamic channel id and its server, on `channels`' drdynvc.
    fn pipeline<'a>(
        &self,
        channels: &'a mut StaticChannelSet,
    ) -> Result<(u32, ironrdp_dvc::DynamicChannelMut<'a, GraphicsPipelineServer>), ServeError> {
        let drdynvc = channels
            .get_by_channel_id_mut(self.svc)
            .and_then(|c| c.channel_processor_downcast_mut::<DrdynvcServer>())
            .ok_or_else(|| ServeError::no_channel("no drdynvc"))?;
        let no = || ServeError::no_channel("no graphics channel");
        let id = drdynvc.get_channel_id_by_type::<GraphicsPipelineServer>().ok_or_else(no)?;
        Ok((id, drdynvc.dvc_by_id_mut::<GraphicsPipelineServer>(id).ok_or_else(no)?))
    }

    /// Data the client sent on the drdynvc channel: the bytes to answer with, and whether the
    /// pipeline just became ready (the caller repaints everything).
    pub fn on_data(&mut self, channels: &mut StaticChannelSet, data: &[u8]) -> Result<(Vec<u8>, bool), ServeError> {
        let chan =
            channels.get_by_channel_id_mut(self.svc).ok_or_else(|| ServeError::no_channel("no drdynvc channel"))?;
        let msgs = chan.process(data).map_err(|e| ServeError::channel("drdynvc", e))?;
        let mut out = ironrdp_svc::server_encode_svc_messages(msgs, self.svc, self.user_channel)
            .map_err(|e| ServeError::channel("drdynvc", e))?;
        let (negotiated, acks, closed) = {
            let mut s = self.shared.lock().unwrap_or_else(|p| p.into_inner());
            (s.negotiated.clone(), std::mem::take(&mut s.acks), s.closed)
        };
        for (id, depth, at) in acks {
            self.stats.max_queue_depth = self.stats.max_queue_depth.max(depth);
            // Frames are acknowledged in order; older ones left unacknowledged are skipped.
            while let Some(&(f, sent)) = self.in_flight.front() {
                self.in_flight.pop_front();
                if f == id {
                    self.stats.ack_ns.push(at.saturating_sub(sent));
                    break;
                }
            }
        }
        let mut ready = false;
        if closed {
            self.surface = None;
            self.stats.state = "closed by the client".into();
        } else if let (Some(version), None) = (negotiated, self.surface) {
            let (w, h) = self.size;
            let (id, mut g) = self.pipeline(channels)?;
            let server = g.processor_mut();
            server.set_output_dimensions(w, h);
            let surface =
                server.create_surface(w, h).ok_or_else(|| ServeError::no_channel("the pipeline refused a surface"))?;
            server.map_surface_to_output(surface, 0, 0);
            let msgs = server.drain_output();
            out.extend(self.encode(id, msgs)?);
            self.surface = Some(surface);
            self.stats.state = version;
            ready = true;
        }
        Ok((out, ready))
    }

    fn encode(&self, dvc: u32, msgs: Vec<ironrdp_dvc::DvcMessage>) -> Result<Vec<u8>, ServeError> {
        let svc = ironrdp_dvc::encode_dvc_messages(dvc, msgs, ironrdp_svc::ChannelFlags::empty())
            .map_err(|e| ServeError::channel("drdynvc", e))?;
        ironrdp_svc::server_encode_svc_messages(svc, self.svc, self.user_channel)
            .map_err(|e| ServeError::channel("drdynvc", e))
    }

    /// Send `area` of the canvas as one frame: the bytes to write, or none when the client's
    /// decode queue is full (the frame is dropped, its damage goes with the next).
    pub fn frame(
        &mut self,
        channels: &mut StaticChannelSet,
        canvas: &latlab_desktop::render::Canvas,
        area: latlab_desktop::fb::Area,
    ) -> Result<Option<Vec<u8>>, ServeError> {
        let Some(surface) = self.surface else { return Ok(None) };
        canvas.read_bgrx(area, &mut self.pixels);
        let ts = ((monotonic_now() - self.started) / 1_000_000) as u32;
        let region = ExclusiveRectangle {
            left: area.x as u16,
            top: area.y as u16,
            right: (area.x + area.w) as u16,
            bottom: (area.y + area.h) as u16,
        };
        let (id, mut g) = self.pipeline(channels)?;
        let server = g.processor_mut();
        let frame = match server.try_send_uncompressed_region(surface, &self.pixels, region, ts) {
            Ok(f) => f,
            Err(_) if server.should_backpressure() => return Ok(None),
            Err(e) => return Err(ServeError::channel("graphics pipeline", e)),
        };
        let msgs = server.drain_output();
        let bytes = self.encode(id, msgs)?;
        self.in_flight.push_back((frame, monotonic_now()));
        Ok(Some(bytes))
    }
}
